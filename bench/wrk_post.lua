-- POST a quiz answer with a fresh idempotency key per request, rotating over many learners.
-- Env: BENCH_PATH, BENCH_BODY (the form without the key), BENCH_LEARNERS (a file with one
-- "cookie<TAB>csrf token" line per learner, optionally "<TAB>fields" added to that learner's
-- body, such as the signed variant their form shows).
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  counter = 0
  prefix = "bench" .. tostring(tid) .. "x" .. tostring(os.time())
  learners = {}
  for line in io.lines(os.getenv("BENCH_LEARNERS")) do
    local cookie, token, extra = line:match("^([^\t]*)\t([^\t]+)\t?(.*)$")
    table.insert(learners, {cookie = cookie, token = token, extra = extra or ""})
  end
  path = os.getenv("BENCH_PATH")
  form = os.getenv("BENCH_BODY")
end

function request()
  counter = counter + 1
  local learner = learners[(counter + tid * 7) % #learners + 1]
  local body = form .. "&chave=" .. prefix .. "k" .. tostring(counter) .. "pad"
  if learner.extra ~= "" then body = body .. "&" .. learner.extra end
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Cookie"] = learner.cookie,
    ["HX-Request"] = "true",
    ["x-csrftoken"] = learner.token,
  }, body)
end
