/**
 * Who is calling and what they may do: bearer tokens, each with a user and OAuth-style scopes, and the base
 * permission levels (none < read < comment < edit < create) that decide what that user may do in a base.
 * A missing scope, no access to the base and an unknown base all answer the same 403, as upstream.
 *
 * Token kinds: a token starting with "pat" is a personal access token; any other is treated as an OAuth access
 * token. The difference shows where the upstream shows it: whoami lists `scopes` only for OAuth tokens, and an
 * OAuth integration may own at most 2 webhooks per base. Access tokens issued by the emulator's own OAuth
 * endpoints (oauth.ts, routes/oauth.ts) are OAuth tokens of the user who approved them, with the approved scopes.
 */
import { parseAuthorization } from '../../../emulation/authorization.js';
import { err, ok, type Result } from '../../../emulation/result.js';
import type { StoreDatabase } from './database.js';
import { errors, type StoreError } from './errors.js';
import { atLeast, type BaseRow, type PermissionLevel } from './model.js';

/** Every scope the upstream documents (upstream-apis.md C.1); the sandbox token carries them all. */
export const ALL_SCOPES: readonly string[] = [
  'data.records:read',
  'data.records:write',
  'data.recordComments:read',
  'data.recordComments:write',
  'schema.bases:read',
  'schema.bases:write',
  'webhook:manage',
  'block:manage',
  'user.email:read',
  'enterprise.groups:read',
  'workspacesAndBases:read',
  'workspacesAndBases:write',
  'workspacesAndBases.shares:manage',
  'enterprise.scim.usersAndGroups:manage',
  'enterprise.auditLogs:read',
  'enterprise.changeEvents:read',
  'enterprise.exports:manage',
  'enterprise.account:read',
  'enterprise.account:write',
  'enterprise.user:read',
  'enterprise.user:write',
  'enterprise.groups:manage',
  'workspacesAndBases:manage',
  'hyperDB.records:read',
  'hyperDB.records:write',
];

export type TokenKind = 'personalAccessToken' | 'oauth';

export interface Principal {
  userId: string;
  scopes: ReadonlySet<string>;
  kind: TokenKind;
}

export interface TokenGrant {
  token: string;
  /** Defaults to the account's owner: the first seeded user, whichever seed is loaded. */
  userId?: string;
  scopes: readonly string[];
}

export function tokenKindOf(token: string): TokenKind {
  return token.startsWith('pat') ? 'personalAccessToken' : 'oauth';
}

/** The first 4 characters at most, so a hint never gives most of a token away. */
export function tokenHint(token: string): string {
  return `${token.slice(0, Math.min(4, Math.floor(token.length / 2)))}…`;
}

/**
 * OAuth: where access tokens issued by the emulator's token endpoint are looked up (oauth.ts's OAuthState): the
 * approving user and the approved scopes while the token is live, undefined once it expired or was revoked.
 */
/** What Access reads of a request: its Authorization header (a Hono context is one; Access needs no more of HTTP). */
export interface Credentials {
  req: { header(name: 'authorization'): string | undefined };
}

export interface IssuedTokenSource {
  principalOf(token: string): { userId: string; scopes: ReadonlySet<string> } | undefined;
}

export class Access {
  readonly #tokens = new Map<string, { userId?: string; scopes: ReadonlySet<string>; kind: TokenKind }>();
  readonly grants: readonly TokenGrant[];

  constructor(
    private readonly store: StoreDatabase,
    grants: readonly TokenGrant[],
    // OAuth: tokens issued through /oauth2/v1/token, asked after the static grants.
    private readonly issued?: IssuedTokenSource,
  ) {
    this.grants = grants;
    for (const g of grants) {
      this.#tokens.set(g.token, {
        ...(g.userId === undefined ? {} : { userId: g.userId }),
        scopes: new Set(g.scopes),
        kind: tokenKindOf(g.token),
      });
    }
  }

  #isActive: (userId: string) => boolean = () => true;

  /** The administration plane says who is deactivated: their tokens stop working, as upstream. */
  setUserActivity(isActive: (userId: string) => boolean): void {
    this.#isActive = isActive;
  }

  principal(c: Credentials): Principal | undefined {
    const found = this.#principal(c);
    return found && this.#isActive(found.userId) ? found : undefined;
  }

  #principal(c: Credentials): Principal | undefined {
    const auth = parseAuthorization(c.req.header('authorization'));
    if (auth.scheme !== 'bearer') return undefined;
    const grant = this.#tokens.get(auth.token);
    if (!grant) {
      // OAuth: an issued access token acts as its approving user, who must still exist, with the approved scopes.
      const issued = this.issued?.principalOf(auth.token);
      if (!issued || !this.store.schema().userById.has(issued.userId)) return undefined;
      return { userId: issued.userId, scopes: issued.scopes, kind: 'oauth' };
    }
    const userId = grant.userId ?? this.owner();
    return userId === undefined ? undefined : { userId, scopes: grant.scopes, kind: grant.kind };
  }

  /** The account owner: the first user. */
  owner(): string | undefined {
    return this.store.schema().users[0]?.id;
  }

  /** The caller, if the token carries `scope`; else the upstream's 401 or 403. */
  require(c: Credentials, scope: string | undefined): Result<Principal, StoreError> {
    const principal = this.principal(c);
    if (!principal) return err(errors.authenticationRequired());
    if (scope !== undefined && !principal.scopes.has(scope)) return err(errors.modelNotFound());
    return ok(principal);
  }

  /**
   * The base, if the caller's user has at least `needed` in it. No access at all (or no such base) is the
   * model-not-found 403; some access but too little is INVALID_PERMISSIONS naming what was refused.
   */
  base(
    principal: Principal,
    baseId: string,
    needed: PermissionLevel,
    refused: string,
  ): Result<BaseRow, StoreError> {
    const base = this.store.schema().baseById.get(baseId);
    const level = base ? this.store.permissionOf(baseId, principal.userId) : 'none';
    if (!base || level === 'none') return err(errors.modelNotFound());
    if (!atLeast(level, needed)) return err(errors.notPermitted(refused));
    return ok(base);
  }
}
