/**
 * How an emulator's data came to be when it started: seeded just now, or kept from an earlier run of the same
 * database file (then `--seed` had no effect, which the CLI says; see src/cli/seedNotice.ts).
 */
export interface SeedingReport {
  /** True when this start laid the seed down (an empty or in-memory database, or a reset). */
  fresh: boolean;
  /** The seed the data in the database was made with, as recorded in it; undefined if it is not recorded. */
  seed: number | undefined;
}
