/**
 * The project's root directory (package.json, openapi.yaml, public/): above src/ when run from the
 * sources, above dist/src/ when run from the build (`npm run build`), one directory deeper.
 */
export const PROJECT_ROOT = new URL(import.meta.url.endsWith('.ts') ? '../' : '../../', import.meta.url);
