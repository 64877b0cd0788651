export { exportQuery } from './export.query.ts';
export { registerCallExport } from './export.routes.ts';
export type { CallExport, ExportFormat } from './export.service.ts';
export { createCallExport } from './export.service.ts';
