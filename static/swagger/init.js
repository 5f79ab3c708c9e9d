// Starts Swagger UI on /api/docs (a file, so the page needs no inline script under the CSP).
window.addEventListener("DOMContentLoaded", function () {
  window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
});
