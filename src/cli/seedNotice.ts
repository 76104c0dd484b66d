// Says so when `--seed` cannot take effect: the sandbox keeps the data it finds, so a seed given for data that
// already exists changes nothing until `--reset`. Without the line, people compare ids across runs and wonder.

import type { SeedingReport } from '../emulation/seeding.js';
import { log } from '../runtime/log.js';

/** The warning for a `--seed` given while a service's sandbox data was kept; undefined when there is none. */
export function seedIgnoredWarning(
  service: string,
  requested: number | undefined,
  seeding: SeedingReport | undefined,
  file: string,
): { message: string; fields: Record<string, unknown> } | undefined {
  if (requested === undefined || !seeding || seeding.fresh) return undefined;
  const madeWith =
    seeding.seed === undefined ? 'an earlier run' : `seed ${seeding.seed} (with any changes made since)`;
  return {
    message: `${service}: the sandbox data in ${file} is kept from ${madeWith}; --seed ${requested} is ignored. Add --reset to reseed it with seed ${requested} (this deletes changes made in the sandbox).`,
    fields: { service, data: file, data_seed: seeding.seed ?? null, requested_seed: requested },
  };
}

export function warnIfSeedIgnored(
  service: string,
  requested: number | undefined,
  seeding: SeedingReport | undefined,
  file: string,
): void {
  const warning = seedIgnoredWarning(service, requested, seeding, file);
  if (warning) log('warn', warning.message, warning.fields);
}
