-- GET with the learner's cookie and htmx headers when given. Env: BENCH_COOKIE, BENCH_HX,
-- BENCH_GZIP (1: "Accept-Encoding: gzip", as a browser sends).
function init(args)
  local cookie = os.getenv("BENCH_COOKIE")
  if cookie and cookie ~= "" then wrk.headers["Cookie"] = cookie end
  if os.getenv("BENCH_HX") == "1" then wrk.headers["HX-Request"] = "true" end
  if os.getenv("BENCH_GZIP") == "1" then wrk.headers["Accept-Encoding"] = "gzip" end
end
