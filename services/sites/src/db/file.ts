/** The embedded database's file name under STATE_DIR (its -wal and -shm files sit beside it). */
export const SITES_DB_FILE = "sites.sqlite";
