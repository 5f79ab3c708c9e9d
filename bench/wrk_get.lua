-- GET with the learner's cookie and htmx headers when given. Env: BENCH_COOKIE, BENCH_HX.
function init(args)
  local cookie = os.getenv("BENCH_COOKIE")
  if cookie and cookie ~= "" then wrk.headers["Cookie"] = cookie end
  if os.getenv("BENCH_HX") == "1" then wrk.headers["HX-Request"] = "true" end
end
