// `npm run migrate` and the Procfile's release: pg-boss's schema and queues, then ours.
import { loadConfig } from '../shared/config.ts';
import { migrateAll } from '../shared/migrate.ts';

const config = loadConfig();
if (!config.databaseUrl) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
const applied = await migrateAll(config, config.databaseUrl);
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'migrations are current');
