-- POST a quiz answer with a fresh idempotency key each time.
-- Env: BENCH_COOKIE, BENCH_TOKEN, BENCH_OPTION, BENCH_PATH.
local counter = 0
local prefix = tostring(math.random(1, 1e9))
wrk.method = "POST"
wrk.path = os.getenv("BENCH_PATH")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Cookie"] = os.getenv("BENCH_COOKIE")
wrk.headers["HX-Request"] = "true"
wrk.headers["x-csrftoken"] = os.getenv("BENCH_TOKEN")

function request()
  counter = counter + 1
  local body = "opcao=" .. os.getenv("BENCH_OPTION") .. "&chave=" .. prefix .. "-" .. tostring(counter)
  return wrk.format(nil, nil, nil, body)
end
