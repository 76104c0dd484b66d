// Values both the request body schemas (this folder) and the tools' own arguments use. Kept apart from the
// schemas so that a tool module can use them without loading the schemas, which the tools load on their first
// call only (tools/shared.ts storeBody).

/** States of an enterprise user. */
export const USER_STATES = ['provisioned', 'deactivated'] as const;
/** The most primary keys or records one bulk-table request takes. */
export const BULK_RECORDS_PER_REQUEST = 1000;
/** Who may create bases in a workspace, or share them. */
export const RESTRICTIONS = ['unrestricted', 'onlyOwners'] as const;
/** The longest field description the upstream accepts, in characters. */
export const FIELD_DESCRIPTION_MAX = 20_000;
/** States of an eDiscovery export. */
export const EXPORT_STATES = ['pending', 'processing', 'error', 'done'] as const;
