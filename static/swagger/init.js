// Starts Swagger UI on the API docs page (a file, so the page needs no inline script under the
// CSP). The schema's address comes from the page (data-openapi-url, from the app's settings).
window.addEventListener("DOMContentLoaded", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({ url: root.getAttribute("data-openapi-url"), dom_id: "#swagger-ui", deepLinking: true });
});
