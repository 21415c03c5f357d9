// npm run sites -- <command>: the operator's tools for the sites database.
//   purge-expired     removes the records of every site whose retention has ended
//   backup <file>     copies the embedded SQLite database, online, to <file> (PostgreSQL: pg_dump)
//   verify <zip>      checks an export's manifest hashes and audit chain
import { readFileSync } from "node:fs";
import path from "node:path";
import { ConfigError, systemClock } from "@permits/runtime";
import { backupSqlite, readSqlBackend } from "@permits/state/sql";
import { SITES_DB_FILE } from "./db/file.js";
import { openSitesDatabase } from "./db/open.js";
import { verifyExport } from "./export.js";
import { purgeExpired } from "./handlers/trail.js";

const USAGE = "usage: npm run sites -- purge-expired | backup <file> | verify <export.zip>";

export async function runCli(args: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const where = readSqlBackend(env);
  const { stateDir } = where;
  const [command, arg] = args;
  if (command === "purge-expired") {
    const database = await openSitesDatabase(where);
    try {
      const asOf = new Date(systemClock.now()).toISOString().slice(0, 10);
      const purged = await purgeExpired({ db: database.db, kind: database.kind, clock: systemClock }, asOf);
      out(purged.length === 0 ? `no site's retention ended before ${asOf}` : `purged ${purged.length} site(s) whose retention ended before ${asOf}: ${purged.join(", ")}`);
      return 0;
    } finally {
      await database.close();
    }
  }
  if (command === "backup" && arg) {
    if (where.databaseUrl) throw new ConfigError("DATABASE_URL is set: back PostgreSQL up with pg_dump (see services/sites/README.md)");
    const pages = await backupSqlite(path.join(stateDir, SITES_DB_FILE), path.resolve(arg));
    out(`backed up ${path.join(stateDir, SITES_DB_FILE)} to ${path.resolve(arg)} (${pages} pages)`);
    return 0;
  }
  if (command === "verify" && arg) {
    const check = verifyExport(readFileSync(arg));
    out(check.ok ? `${arg}: every file matches the manifest and the audit trail's chain holds` : `${arg}: ${check.problems.join("; ")}`);
    return check.ok ? 0 : 1;
  }
  out(USAGE);
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runCli(process.argv.slice(2), process.env, (line) => console.log(line)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof ConfigError ? e.message : `sites: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}
