-- POST a form with a fresh idempotency key per request (one prefix per wrk thread).
-- Env: BENCH_PATH, BENCH_COOKIE, BENCH_TOKEN, BENCH_BODY (the form without the key).
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  counter = 0
  prefix = "bench" .. tostring(tid) .. "x" .. tostring(os.time())
  wrk.method = "POST"
  wrk.path = os.getenv("BENCH_PATH")
  wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
  wrk.headers["Cookie"] = os.getenv("BENCH_COOKIE")
  wrk.headers["HX-Request"] = "true"
  wrk.headers["x-csrftoken"] = os.getenv("BENCH_TOKEN")
end

function request()
  counter = counter + 1
  local body = os.getenv("BENCH_BODY") .. "&chave=" .. prefix .. "k" .. tostring(counter) .. "pad"
  return wrk.format(nil, nil, nil, body)
end
