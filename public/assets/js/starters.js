// The starter kits' page: its commands name this arena, wherever it runs.
for (const code of document.querySelectorAll('.starters pre code')) {
  code.textContent = code.textContent.replaceAll('https://this-arena.example', location.origin);
}
