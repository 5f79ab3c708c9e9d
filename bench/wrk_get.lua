-- GET with the learner's cookie and htmx headers when given. Env: BENCH_COOKIE, BENCH_HX,
-- BENCH_COMPRESSED (1: the Accept-Encoding Chromium sends, gzip and deflate among others).
function init(args)
  local cookie = os.getenv("BENCH_COOKIE")
  if cookie and cookie ~= "" then wrk.headers["Cookie"] = cookie end
  if os.getenv("BENCH_HX") == "1" then wrk.headers["HX-Request"] = "true" end
  if os.getenv("BENCH_COMPRESSED") == "1" then wrk.headers["Accept-Encoding"] = "gzip, deflate, br, zstd" end
end
