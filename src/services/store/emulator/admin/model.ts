/**
 * The administration plane's model: the organisation (a root enterprise account and its descendants), what an
 * enterprise knows about each user beyond the data plane's id, email and name, user groups, and who may reach
 * each workspace, base and interface (collaborators, invites, restrictions), plus shares, block installations
 * and the asynchronous compliance tasks. Plain data; AdminState keeps it and the route files give it meaning.
 *
 * Users, workspaces and bases themselves stay in the data plane's tables (database.ts): these documents hang off
 * their ids. A user's direct base grants stay in base_permissions too, so the data plane sees them unchanged.
 */
import type { PermissionLevel } from '../model.js';

export type BaseLevel = Exclude<PermissionLevel, 'none'>;
/** Workspace collaborators may also be owners; an owner has `create` in every base of the workspace. */
export type WorkspaceLevel = BaseLevel | 'owner';
export type InterfaceLevel = 'read' | 'comment' | 'edit';
export type Restriction = 'unrestricted' | 'onlyOwners';
export type UserState = 'provisioned' | 'deactivated';
export type EnabledState = 'enabled' | 'disabled';

export interface EnterpriseAccountDoc {
  id: string;
  name: string;
  createdTime: string;
  /** The organisation: the root's own id for a root account. */
  rootEnterpriseAccountId: string;
  parentEnterpriseAccountId: string | null;
  /** Enterprise Hub: lets a root account have descendants and move groups and workspaces among them. */
  enterpriseHub: boolean;
  emailDomains: { emailDomain: string; isSsoRequired: boolean }[];
}

/** What the enterprise knows about a user, keyed by the data plane's user id. */
export interface UserProfileDoc {
  id: string;
  /** The account that manages or holds the user; null for someone outside every seeded enterprise. */
  enterpriseAccountId: string | null;
  firstName: string;
  lastName: string;
  state: UserState;
  isManaged: boolean;
  isAdmin: boolean;
  isServiceAccount: boolean;
  isSsoRequired: boolean;
  isTwoFactorAuthEnabled: boolean;
  createdTime: string;
  lastActivityTime: string | null;
  invitedToAirtableByUserId: string | null;
  /** Set by a logout: sessions before it are ended. */
  loggedOutTime: string | null;
  /** SCIM attributes beyond the ones above (externalId, title, the enterprise extension...). */
  scim: Record<string, unknown>;
}

export interface GroupMember {
  userId: string;
  role: 'member' | 'manager';
  createdTime: string;
}

export interface UserGroupDoc {
  id: string;
  name: string;
  enterpriseAccountId: string;
  createdTime: string;
  updatedTime: string;
  mappedUserLicenseType: string | null;
  members: GroupMember[];
  /** SCIM attributes beyond displayName and members (externalId...). */
  scim: Record<string, unknown>;
}

export interface Grant<L> {
  permissionLevel: L;
  createdTime: string;
  grantedByUserId: string;
}

export interface InviteDoc {
  id: string;
  invitedEmail: string;
  permissionLevel: string;
  createdTime: string;
  invitedByUserId: string;
}

export interface WorkspaceAdminDoc {
  /** The workspace's id. */
  id: string;
  enterpriseAccountId: string;
  inviteCreationRestriction: Restriction;
  shareCreationRestriction: Restriction;
  users: Record<string, Grant<WorkspaceLevel>>;
  groups: Record<string, Grant<WorkspaceLevel>>;
  invites: InviteDoc[];
}

export interface BaseAdminDoc {
  /** The base's id. Individual levels live in base_permissions; here only when and by whom they were granted. */
  id: string;
  userGrants: Record<string, { createdTime: string; grantedByUserId: string }>;
  groups: Record<string, Grant<BaseLevel>>;
  invites: InviteDoc[];
}

export interface InterfaceDoc {
  id: string;
  baseId: string;
  name: string;
  createdTime: string;
  /** When the interface was first published; null while it never was (the upstream's firstPublishTime). */
  firstPublishTime: string | null;
  users: Record<string, Grant<InterfaceLevel>>;
  groups: Record<string, Grant<InterfaceLevel>>;
  invites: InviteDoc[];
}

export interface ShareDoc {
  id: string;
  baseId: string;
  type: 'base' | 'view' | 'blockInstallation';
  viewId: string | null;
  blockInstallationId: string | null;
  state: EnabledState;
  createdByUserId: string;
  createdTime: string;
  isPasswordProtected: boolean;
  restrictedToEmailDomains: string[];
  restrictedToEnterpriseMembers: boolean;
  shareTokenPrefix: string;
}

export interface BlockInstallationDoc {
  id: string;
  baseId: string;
  name: string;
  blockId: string;
  state: EnabledState;
  createdTime: string;
  createdByUserId: string;
  /** Deleted installations are kept (the upstream can restore them) but no longer listed. */
  deletedTime: string | null;
}

/** A legacy audit log request; its state follows from the clock (see tasks). */
export interface AuditLogTaskDoc {
  id: string;
  enterpriseAccountId: string;
  createdTime: string;
  createdByUserId: string;
  timePeriod: string;
  filter: string | null;
}

export interface ExportDoc {
  id: string;
  enterpriseAccountId: string;
  createdTime: string;
  userId: string;
  request: { baseId: string; includeCsvFormat: boolean; shouldSendEmailOnCompletion: boolean };
}

/** Document kinds and their shapes, as AdminState stores them. */
export interface AdminDocs {
  account: EnterpriseAccountDoc;
  profile: UserProfileDoc;
  group: UserGroupDoc;
  workspace: WorkspaceAdminDoc;
  base: BaseAdminDoc;
  interface: InterfaceDoc;
  share: ShareDoc;
  blockInstallation: BlockInstallationDoc;
  auditLogTask: AuditLogTaskDoc;
  export: ExportDoc;
}

export type AdminKind = keyof AdminDocs;

export const ADMIN_KINDS: readonly AdminKind[] = [
  'account',
  'profile',
  'group',
  'workspace',
  'base',
  'interface',
  'share',
  'blockInstallation',
  'auditLogTask',
  'export',
];
