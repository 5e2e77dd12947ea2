/**
 * The project's root directory (package.json, openapi.yaml, public/): two above src/support/ when run
 * from the sources, three above dist/src/support/ when run from the build (`npm run build`).
 */
export const PROJECT_ROOT = new URL(
  import.meta.url.endsWith('.ts') ? '../../' : '../../../',
  import.meta.url,
);
