// Prints the OpenAPI document without starting a server: `npm run openapi > openapi.json`.
import { buildOpenApi } from './openapi.ts';

process.stdout.write(`${JSON.stringify(buildOpenApi({ auth: process.argv.includes('--auth') }), null, 2)}\n`);
