export { registerOpenApi } from './openapi.plugin.ts';
export { registerOpenApiDocument, registerReferencePage } from './openapi.routes.ts';
export { FAVICON_PATH } from './reference-page.ts';
