// The API reference at /docs: Swagger UI's bundle (a classic script the page loads first, served by
// the arena from swagger-ui-dist) draws /openapi.json inside the site's layout. JSON, not YAML:
// the browser parses it natively, where the bundle would parse YAML in script.

const status = document.getElementById('docs-status');
const SwaggerUIBundle = window.SwaggerUIBundle;

if (typeof SwaggerUIBundle !== 'function') {
  const box = document.getElementById('docs-error');
  box.textContent = 'The reference could not be loaded. The contract itself is at /openapi.yaml.';
  box.hidden = false;
  status.hidden = true;
} else {
  SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    // The schemas are in each operation; the list of them all at the end is long and rarely wanted.
    defaultModelsExpandDepth: -1,
    displayRequestDuration: true,
    // Its default sends the contract's URL to validator.swagger.io for a badge: nothing leaves the arena.
    validatorUrl: null,
    onComplete: () => {
      status.hidden = true;
    },
  });
}
