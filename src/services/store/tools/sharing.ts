// Who can use a base or an interface: collaborators, invites, shares and extensions (block installations).
// 16 StoreApi tools as declarative rows over the generic executor.

import { z } from 'zod';
import { STORE_OPERATIONS } from '../endpoints.js';
import {
  airtableQuery,
  CREATE,
  DESTROY,
  id,
  READ_ONLY,
  storeBody,
  storeTool,
  strings,
  UPDATE,
} from './shared.js';

export const SHARING_TOOLS = [
  storeTool({
    name: 'GetBaseCollaborators',
    title: 'Get base collaborators',
    description: "A base's collaborators, invite links and interfaces, as requested.",
    input: z.object({
      base_id: id(),
      fields_to_include: strings('Extras: collaborators, inviteLinks, interfaces'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetBaseCollaborators,
      pathParams: { baseId: 'base_id' },
      query: { include: 'fields_to_include' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'ListBaseBlockInstallations',
    title: 'List extensions',
    description: 'Extensions (block installations) of a base and their state.',
    input: z.object({ base_id: id() }),
    hints: READ_ONLY,
    endpoint: { operation: STORE_OPERATIONS.ListBlockInstallations, pathParams: { baseId: 'base_id' } },
  }),
  storeTool({
    name: 'DeleteStoreBlockInstallation',
    title: 'Delete extension',
    description: 'Delete an extension from a base (recoverable later).',
    input: z.object({ store_base_id: id(), block_installation_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteBlockInstallation,
      pathParams: { baseId: 'store_base_id', blockInstallationId: 'block_installation_id' },
    },
  }),
  storeTool({
    name: 'ManageStoreBlockInstallation',
    title: 'Turn extension on or off',
    description: 'Enable or disable an extension of a base.',
    input: z.object({ store_base_id: id().optional(), block_installation_id: id().optional() }),
    requestBody: storeBody('manageBlockInstallation'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.ManageBlockInstallation,
      pathParams: { baseId: 'store_base_id', blockInstallationId: 'block_installation_id' },
      idempotent: true,
    },
  }),
  storeTool({
    name: 'AddBaseCollaborator',
    title: 'Add base collaborator',
    description: 'Give one user or group access to a base.',
    input: z.object({ base_id: id().optional() }),
    requestBody: storeBody('addBaseCollaborators'),
    hints: CREATE,
    endpoint: { operation: STORE_OPERATIONS.AddBaseCollaborator, pathParams: { baseId: 'base_id' } },
  }),
  storeTool({
    name: 'RemoveBaseCollaborator',
    title: 'Remove base collaborator',
    description: "Remove a user's or group's access to a base.",
    input: z.object({ base_id: id(), collaborator_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteBaseCollaborator,
      pathParams: { baseId: 'base_id', userOrGroupId: 'collaborator_id' },
    },
  }),
  storeTool({
    name: 'UpdateCollaboratorPermission',
    title: 'Change base access',
    description: "Change a base collaborator's permission level.",
    input: z.object({ base_identifier: id().optional(), collaborator_id: id().optional() }),
    requestBody: storeBody('updateBaseCollaborator'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.UpdateBaseCollaborator,
      pathParams: { baseId: 'base_identifier', userOrGroupId: 'collaborator_id' },
      idempotent: true,
    },
  }),
  storeTool({
    name: 'GetInterfaceInfo',
    title: 'Get interface',
    description: 'An interface with, on request, its collaborators and invite links.',
    input: z.object({
      store_base_id: id(),
      interface_id: id(),
      include_elements: strings('Extras: collaborators, inviteLinks'),
    }),
    hints: READ_ONLY,
    endpoint: {
      operation: STORE_OPERATIONS.GetInterface,
      pathParams: { baseId: 'store_base_id', pageBundleId: 'interface_id' },
      query: { include: 'include_elements' },
      serializeQuery: airtableQuery,
    },
  }),
  storeTool({
    name: 'AddCollaboratorToStoreInterface',
    title: 'Add interface collaborator',
    description: 'Give one user or group access to an interface only.',
    input: z.object({ store_base_id: id().optional(), page_bundle_id: id().optional() }),
    requestBody: storeBody('addInterfaceCollaborator'),
    hints: CREATE,
    endpoint: {
      operation: STORE_OPERATIONS.AddInterfaceCollaborator,
      pathParams: { baseId: 'store_base_id', pageBundleId: 'page_bundle_id' },
    },
  }),
  storeTool({
    name: 'RemoveInterfaceCollaborator',
    title: 'Remove interface collaborator',
    description: "Remove a user's or group's access to an interface.",
    input: z.object({ base_id: id(), collaborator_id: id(), interface_page_bundle_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteInterfaceCollaborator,
      pathParams: {
        baseId: 'base_id',
        pageBundleId: 'interface_page_bundle_id',
        userOrGroupId: 'collaborator_id',
      },
    },
  }),
  storeTool({
    name: 'UpdateCollaboratorPermissions',
    title: 'Change interface access',
    description: "Change an interface-only collaborator's permission level.",
    input: z.object({
      base_identifier: id().optional(),
      interface_page_bundle_id: id().optional(),
      collaborator_id: id().optional(),
    }),
    requestBody: storeBody('updateInterfaceCollaborator'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.UpdateInterfaceCollaborator,
      pathParams: {
        baseId: 'base_identifier',
        pageBundleId: 'interface_page_bundle_id',
        userOrGroupId: 'collaborator_id',
      },
      idempotent: true,
    },
  }),
  storeTool({
    name: 'DeleteInterfaceInvite',
    title: 'Delete interface invite',
    description: 'Withdraw an outstanding invite to an interface.',
    input: z.object({ base_identifier: id(), invite_id: id(), page_bundle_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteInterfaceInvite,
      pathParams: { baseId: 'base_identifier', pageBundleId: 'page_bundle_id', inviteId: 'invite_id' },
    },
  }),
  storeTool({
    name: 'DeleteBaseInvite',
    title: 'Delete base invite',
    description: 'Withdraw an outstanding invite to a base.',
    input: z.object({ base_id: id(), invite_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteBaseInvite,
      pathParams: { baseId: 'base_id', inviteId: 'invite_id' },
    },
  }),
  storeTool({
    name: 'ListBaseShares',
    title: 'List shares',
    description: 'Share links of a base (base, view, extension) and their state.',
    input: z.object({ base_identifier: id() }),
    hints: READ_ONLY,
    endpoint: { operation: STORE_OPERATIONS.ListShares, pathParams: { baseId: 'base_identifier' } },
  }),
  storeTool({
    name: 'DeleteStoreShare',
    title: 'Delete share',
    description: 'Delete a share link for good.',
    input: z.object({ store_base_id: id(), share_id: id() }),
    hints: DESTROY,
    endpoint: {
      operation: STORE_OPERATIONS.DeleteShare,
      pathParams: { baseId: 'store_base_id', shareId: 'share_id' },
    },
  }),
  storeTool({
    name: 'ManageStoreSharing',
    title: 'Turn share on or off',
    description: 'Enable or disable a share link.',
    input: z.object({ store_base_id: id().optional(), share_identifier: id().optional() }),
    requestBody: storeBody('manageShare'),
    hints: UPDATE,
    endpoint: {
      operation: STORE_OPERATIONS.ManageShare,
      pathParams: { baseId: 'store_base_id', shareId: 'share_identifier' },
      idempotent: true,
    },
  }),
];
