// The words people use for each StoreApi tool that its title and description leave out (everyday, vendor and
// neighbouring-product words, and what tells it from its near neighbours). search_tools indexes them in discovery
// mode (runtime/toolSearch.ts); tools/list never shows them, so they cost an agent no tokens. Written from what
// each tool does, not from the discovery fixture's tasks.

export const STORE_SEARCH_TERMS: Readonly<Record<string, string>> = {
  UploadAttachmentToStore:
    'attach image, add photo, pdf, document, picture, screenshot, document on row, image to row, receipt, invoice pdf, logo, contentType filename, encoded content, Airtable, media, image cell, photo on entry, spreadsheet row, add resume',
  DeleteMultipleRecords:
    'remove several rows, bulk remove, batch erase, wipe entries, many rows, several at once, in one go, deduplicate, purge rows, trash rows, erase rows, recXXX list, Airtable, spreadsheet rows, drop lines, mass removal',
  ListStoreRecords:
    'whole sheet, every row, browse, fetch rows, read spreadsheet, query, search rows, entries where, rows matching, condition, export rows, dump contents, how many rows, tally entries, ascending descending, newest entries, paginate, certain columns, Airtable, Google Sheets, Excel, lookup rows, select where, grid contents',
  UpdateStoreRecords:
    'edit several rows, change many rows, bulk edit, batch modify, partial, keep other cells unchanged, leave rest untouched, merge, PATCH, insert or modify, create if missing, match on key column, dedupe on unique key, typecast, mass change, several at once, in one go, set status on many, Airtable, spreadsheet rows',
  CreateStoreRecords:
    'add row, new rows, insert, append entries, add line, log entry, new entry, save data, several rows at once, one or many, batch insert, bulk add, typecast, Google Sheets append, Excel, add to Airtable, write data, capture form submission, populate, import rows, new item',
  BulkUpdateStore:
    'overwrite many rows, full replacement, PUT, destructive, wipe unspecified cells, blank out other columns, empties missing cells, reset rows, full rewrite, set rows exactly, several at once, batch overwrite, in one go, insert or overwrite, match on key column, typecast, Airtable, spreadsheet rows',
  DeleteStoreRecord:
    'remove row, single, erase row, trash row, drop entry, get rid of, wipe entry, line of spreadsheet, recXXX, Airtable, discard, remove item, remove single entry, kill row, spreadsheet row',
  StoreGetRecord:
    'show row, open entry, look at, details, fetch single row, read values, view row, lookup by recXXX, inspect, what is in row, Airtable row, created time, spreadsheet line, column values, single entry, show one',
  UpdateStoreRecord:
    'edit row, change a value, set status, modify entry, PATCH, partial edit, keep other columns, leave rest untouched, single row, fix a typo, mark as done, change column value, correct entry, typecast, Airtable, spreadsheet cell edit, tweak',
  ModifyStoreEntry:
    'overwrite row, full replacement, PUT, clear other columns, blank out missing, reset row, wipe unspecified cells, destructive edit, complete rewrite, set row exactly, empty omitted columns, single row, Airtable, spreadsheet row, whole row',
  GetRecordComments:
    'read discussion, thread, notes on row, conversation, what people said, remarks, replies, mentions, feedback history, all, every, browse, how many, show discussion, Airtable row, who wrote, latest remarks, row chat',
  AddRecordComment:
    'leave note, write remark, post, respond, thread, mention teammate, @mention, annotate row, note on row, discussion, feedback, tag someone, ping colleague, Airtable, say something on row',
  DeleteCommentFromRecord:
    'remove my note, erase remark, take back, retract, my own, mine, get rid of, wrong remark, undo post, clean up discussion, row note, Airtable, remove message, trash remark',
  UpdateRecordComment:
    'fix typo in note, reword, correct my remark, amend, revise, mine, my own, rewrite note, wording, row discussion, Airtable, typo, modify remark, adjust message',
  ListStoreBases:
    'all databases, every app, which apps, browse, what do I have, accessible, projects, spreadsheets, Airtable apps, app ids, find base id, how many, inventory, discover, owner editor read-only, my databases',
  CreateStoreBase:
    'new database, new app, set up, spin up project, start from scratch, build tracker, new spreadsheet, initial structure, Airtable, bootstrap, scaffold, new project tracker, CRM setup, define columns, blank app',
  DeleteStoreBase:
    'remove database, destroy app, trash project, get rid of, wipe entirely, permanently, whole database, tear down, decommission, clean up, Airtable, drop, erase all data, remove app',
  RetrieveUserIdAndScopes:
    'whoami, check credentials, connection test, current account, logged in as, personal access, PAT, OAuth, granted permissions, identity, Airtable, sanity check, auth check, ping, access rights, key valid, is it connected',
  GetStoreBaseSchema:
    'structure, columns, column types, metadata, layout, describe database, data model, what exists, column names, primary column, select options, tabs, headers, Airtable meta, introspect, definitions',
  CreateStoreTable:
    'new tab, add sheet, new worksheet, new list, spreadsheet tab, define columns, set up, new grid, with columns, Airtable, new dataset, add entity, add tab',
  UpdateStoreTable:
    'rename tab, rename sheet, retitle, relabel, edit label, notes about, sheet title, Airtable, tab header, worksheet, modify tab, caption, explain purpose, metadata',
  CreateStoreField:
    'new column, extra column, insert column, append column, column type, single select, checkbox, dropdown, date, number, new attribute, new property, Airtable, structure modification, extend, spreadsheet column, options',
  UpdateStoreFieldDetails:
    'header, heading, label, retitle, relabel, help text, tooltip, documentation, notes, Airtable, explain, edit heading, caption, attribute label',
  ListStoreBaseViews:
    'saved filters, grid, kanban, calendar, gallery, form, layouts, perspectives, every, all, browse, which, how many, Airtable, find saved layout, saved layouts, tabs of display',
  DeleteStoreView:
    'remove saved filter, drop layout, get rid of grid, kanban, calendar, gallery, clean up, keep data, rows remain, tidy, unused, Airtable, discard perspective, trash, remove layout',
  GetStoreViewMetadata:
    'details, inspect, look at, which columns shown, hidden columns, what kind, grid or kanban, gallery, calendar, layout details, Airtable, show one, single layout, perspective',
  ListWebhooksForBase:
    'all, every, subscriptions, callbacks, notificationUrl, expiration, active, enabled, hooks registered, last delivery result, cursorForNextPayload, Airtable, integrations, how many, browse, health, when expires',
  CreateStoreWebhook:
    'subscribe, told when something happens, alert on edits, notify me, callback url, notificationUrl, real time, listen, event subscription, trigger on new row, monitor table, push notifications, HMAC signing key, register hook, Airtable, row added trigger, sync, zapier style trigger',
  DeleteStoreWebhook:
    'unsubscribe, unregister, deregister, remove callback, stop listening, tear down integration, cancel subscription, remove hook, remove for good, clean up, Airtable, permanently, get rid of',
  ToggleWebhookNotifications:
    'pause, resume, mute, unmute, temporarily stop, suspend callbacks, silence, restart delivery, stop calling url, keep hook, Airtable, activate, deactivate, switch',
  ListWebhookPayloads:
    'fetch events, what changed, read updates, diff, poll, consume, events since, cell modifications, created rows, destroyed tables, mightHaveMore, transaction, Airtable, history of edits',
  RefreshWebhookLifespan:
    'renew, keep alive, prevent expiration, prolong, not expire, lifetime, reset timer, before it expires, keepalive, Airtable, stay alive, deadline, expirationTime, extension period',
  GetBaseCollaborators:
    'who has access, members, people with access, permissions, sharing settings, team members, editors, owners, see who can edit, teammates, group members, Airtable, roster, access review, who is shared',
  ListBaseBlockInstallations:
    'apps, plugins, add-ons, installed, widgets, chart app, enabled disabled, all, every, which, browse, Airtable apps, marketplace, dashboard, scripting, how many',
  DeleteStoreBlockInstallation:
    'remove app, uninstall, remove plugin, get rid of widget, remove add-on, trash, restore afterwards, undoable, Airtable app, scripting, chart, clean up, dashboard widget',
  ManageStoreBlockInstallation:
    'activate, deactivate, pause plugin, switch, toggle, re-activate, suspend app, add-on, widget, without uninstalling, keep installed, Airtable app, resume, plugin',
  AddBaseCollaborator:
    'share with, invite, grant permission, invite teammate, let coworker edit, onboard, editor, commenter, read-only, creator role, new member, Airtable, permissionLevel, whole database, bring in colleague',
  RemoveBaseCollaborator:
    'kick out, revoke, offboard, unshare, take away, no longer, former employee, left the company, stop sharing with, expel, drop member, Airtable, lock out, cut off, whole database',
  UpdateCollaboratorPermission:
    'role, promote, demote, make editor, read-only, commenter, creator, upgrade rights, downgrade, edit rights, set role, Airtable, whole database, rights',
  GetInterfaceInfo:
    'page bundle, designer, dashboard, app page, portal, details, look at, who can see, members, people with permission, Airtable, frontend, show one, pending invitations, client portal',
  AddCollaboratorToStoreInterface:
    'share dashboard, invite to portal, limited, grant viewing rights, let client see dashboard, external stakeholder, read comment edit, Airtable, onboard viewer, restricted, not full database, invite',
  RemoveInterfaceCollaborator:
    'kick out of dashboard, revoke, unshare dashboard, offboard, take away, portal, lock out, cut off, stop sharing, Airtable, no longer, former client, external stakeholder, left the company',
  UpdateCollaboratorPermissions:
    'role, promote, demote, read comment edit, dashboard, portal, upgrade, downgrade, set role, commenter, editor, viewer, Airtable, rights',
  DeleteInterfaceInvite:
    'cancel invitation, revoke pending, rescind, take back, dashboard, portal, mistaken email, not yet accepted, Airtable, uninvite, pending, unaccepted, sent by mistake',
  DeleteBaseInvite:
    'cancel invitation, revoke pending, rescind, take back, not yet accepted, wrong email, whole database, Airtable, pending, uninvite, open invitation, app, unaccepted, sent by mistake',
  ListBaseShares:
    'public urls, shared views, read-only urls, who shared, password protected, domain restricted, embed, publish, all, every, browse, external sharing audit, enabled disabled, Airtable, exposed',
  DeleteStoreShare:
    'revoke public url, kill, permanently, unpublish, remove url, stop public viewing, destroy, irreversible, embed, shared view, Airtable, leaked, forever',
  ManageStoreSharing:
    'pause, reactivate, deactivate, temporarily, switch, toggle, suspend, resume, hide public url, unpublish temporarily, Airtable, keep for later, public url',
  ListScimGroups:
    'all, every, browse, show, how many, Okta, Azure AD, Entra ID, identity provider, IdP sync, directory teams, departments, find by name, displayName, provisioned teams',
  CreateScimGroup:
    'new, add, make, set up, provision, Okta push, Azure AD sync, Entra ID, identity provider, IdP, department, team, no members yet, blank, displayName, directory',
  DeleteScimGroup:
    'remove, drop, get rid of, deprovision, Okta unassign, Azure AD, Entra ID, identity provider, IdP, department gone, team disbanded, people kept, directory',
  FetchScimGroup:
    'details, show, look at, open, single, who is in, membership, roster, Okta, Azure AD, identity provider, displayName, by id, team',
  UpdateGroupDetails:
    'rename, add person, remove person, add user, take user out, partial change, only what is given, keep the rest, op add remove replace, Okta push, Azure AD sync, incremental, IdP',
  UpdateGroupAttributes:
    'overwrite, full replacement, PUT, set exact membership, sync entire roster, clear people not given, drop everyone else, reset, rename, Okta full sync, Azure AD, identity provider, all at once',
  ListScimUsers:
    'all, every, browse, how many, count, provisioned accounts, directory, Okta, Azure AD, Entra ID, IdP, find by email, username, page through, startIndex, people, seats',
  CreateScimUser:
    'add, new, onboard, new hire, employee, new account, Okta assign, Azure AD, Entra ID, SAML, identity provider, username, givenName familyName, no password, seat',
  DeleteScimUser:
    'remove, offboard, leaver, terminate, employee left, deprovision, Okta unassign, Azure AD, Entra ID, identity provider, permanently, by id, account removal',
  GetScimUser:
    'details, show, look at, open, single, person, profile, username, activated or not, givenName familyName, Okta, Azure AD, identity provider, by id, check status',
  UpdateScimUserRecord:
    'deactivate, suspend, reactivate, disable login, turn off account, rename, partial change, only attributes given, keep the rest, op replace, Okta, Azure AD, soft offboard',
  UpdateUserAttributes:
    'overwrite, full replacement, PUT, clear fields not given, whole profile, username, givenName familyName, emails, displayName, Okta full push, Azure AD, identity provider, reset profile, everything at once',
  GetEnterpriseInfo:
    'organization, org settings, company, overview, summary, Hub plan, root org, parent org, child orgs, sub-orgs, SSO required, ids, what is in, aggregated, admin console, details',
  GetAuditLogEvents:
    'who did it, who deleted, who changed, activity history, security trail, changelog, Splunk, SIEM, compliance, actor, IP address, user activity, createBase, login, investigate, timeline, 180 days, search',
  RetrieveAuditLogRequests:
    'all, every, past, earlier, download jobs, pending, processing, finished, ready, legacy, monthly files, daily files, file jobs, browse, which ones, how many, tasks',
  CreateAuditLogRequest:
    'dump, download file, generate, kick off, new job, timePeriod, YYYY-MM, YYYY-MM-DD, compliance archive, offline copy, filter by user, IP address, legacy, SIEM ingest, save, activity history',
  RetrieveAuditLog:
    'progress, ready yet, finished, check, poll, task, URL, file, fetch result, single job, one, complete, pending processing',
  GetStoreChangeEvents:
    'what was modified, recent edits, activity, history, recent, two weeks, who modified, feed, incremental sync, polling, Enterprise Scale, data updates, timeline',
  CreateDescendantEnterpriseAccount:
    'sub-org, child org, subsidiary, division, business unit, org unit, organization, hierarchy, under parent, new, add, spin up, set up, affiliate, region',
  GetEdiscoveryExportsStatus:
    'all, every, browse, how many, legal hold, litigation, compliance, pending, processing, done, error, past, jobs, backups, which ones, progress',
  CreateEdiscoveryExport:
    'legal hold, litigation, compliance, snapshot, backup, full copy, download, CSV zip, JSON, email when ready, kick off, archive, investigation, dump data, preserve',
  GetEdiscoveryExportStatus:
    'progress, ready yet, finished, check, poll, single, one job, file, URL, task, legal hold, result, complete',
  BatchMoveUserGroupsBetweenAccounts:
    'transfer, reassign, relocate, migrate, teams, several, many, in one go, other org, sub-org, child org, descendant, Hub plan, reorganize, restructure',
  MoveWorkspacesBetweenEnterpriseAccounts:
    'transfer, reassign, relocate, migrate, several, many, in one go, other org, sub-org, child org, descendant, Hub plan, reorganize, hand over, restructure',
  DeleteUsersByEmail:
    'remove, offboard, several people, many, bulk, in one go, list, wipe, leavers, former employees, terminate, cleanup, permanently, without ids, mail',
  GetStoreUserInfo:
    'look up, find, several, many, multiple people, check, provisioned, deactivated, admin, managed, last activity, two-factor, SSO, membership, which bases, account status, profiles',
  BatchManageEnterpriseUsers:
    'bulk, several, many, in one go, deactivate, reactivate, provisioned, deactivated, rename, surname, new address, suspend, mass edit, offboard, disable accounts',
  BatchManageUserMembership:
    'take over, take control, bring under org, let go, free, govern, ownership, company accounts, domain people, personal accounts, several, many, in one go, consolidate, state',
  GrantAdminAccess:
    'promote, elevate, administrator, privileges, rights, superuser, role, add, upgrade, owner, org management, several, in one go, give, permission',
  RevokeAdminAccess:
    'demote, strip, remove, downgrade, administrator, privileges, rights, superuser, role, no longer, unassign, several, in one go, withdraw, cancel',
  DeleteEnterpriseUser:
    'by id, single, one person, account itself, permanently, erase, wipe, GDPR, right to be forgotten, former employee, leaver, offboard, terminate, destroy, remove',
  GetUserInformation:
    'details, show, look at, open, single, by id, profile, provisioned, deactivated, admin, last activity, two-factor, SSO, which bases, workspaces shared, membership, account status',
  ManageEnterpriseAccountUser:
    'edit, modify, rename, single, one person, new address, surname, spelling, deactivate, reactivate, suspend, provisioned, deactivated, typo, domain switch, profile',
  LogoutEnterpriseUser:
    'sign out, force sign-off, kick off, boot, compromised, stolen laptop, security incident, invalidate login, revoke tokens, terminate, everywhere, every device, immediately, lock out',
  RemoveUserFromEnterprise:
    'offboard, kick out, cut off, leaver, strip permissions, every base, workspaces, interfaces, replacement owner, hand over ownership, dry run, preview, keep account, without deleting, descendants, contractor',
  GetUserGroupInfo:
    'details, show, look at, open, team, who is in, roster, managers, role, which bases, workspaces, shared, id, single, department',
  CreateStoreWorkspace:
    'new, add, make, set up, folder, container for bases, project space, team space, department space, organize bases, name it, start, Airtable',
  DeleteWorkspace:
    'remove, drop, get rid of, destroy, clean up, close, folder, team space, erase, permanently, empty, tidy, shut down, unused, no longer needed',
  GetWorkspaceCollaborators:
    'who has access, members, people, teammates, sharing, permissions, details, look at, open, show, contents, what is inside, owners, roster, info',
  AddWorkspaceCollaborator:
    'invite, share, teammate, new member, grant, permissionLevel, owner, create, edit, comment, read, onboard, bring in, let in, team',
  RemoveWorkspaceCollaborator:
    'kick out, revoke, unshare, take away, boot, teammate, member, offboard, cut off, no longer, drop, strip, person, team',
  UpdateWorkspaceCollaboratorPermission:
    'role, promote, demote, make owner, creator, editor, commenter, read only, upgrade, downgrade, rights, modify, set, teammate, member',
  DeleteWorkspaceInvite:
    'cancel, revoke, pending, invitation, retract, rescind, not accepted, mistaken, wrong person, take back, open, email invitation, unaccepted',
  MoveStoreBase:
    'transfer, relocate, reorganize, different folder, put into, reorder, position, targetIndex, shift, app, database, project, single, one',
  UpdateWorkspaceRestrictions:
    'lock down, limit, onlyOwners, unrestricted, prevent, block, stop members, link policy, invitation policy, governance, security, public links, admins only, allow, settings, controls',
  DeleteRecordsByPrimaryKeys:
    'HyperDB, entries, purge, wipe, erase, remove, bulk, batch, many, thousand, in one go, large dataset, 100 million, cleanup, Enterprise Scale, unique id, identifiers',
  ReadBulkTableRecords:
    'get, fetch, look up, HyperDB, entries, big dataset, large dataset, page through, nextCursor, export, query, retrieve, browse, scan, unique id, select columns, Enterprise Scale',
  UpsertStoreRecords:
    'create or replace, add or change, merge, sync, load, import, write, push, save, bulk, batch, many, thousands, in one go, HyperDB, entries, big dataset, ETL, idempotent, Enterprise Scale',
};

/** Airtable's identifier prefixes (`recXXXXXXXXXXXXXX`) and what each names, for search_tools. */
export const STORE_IDENTIFIER_PREFIXES: Readonly<Record<string, string>> = {
  app: 'base',
  tbl: 'table',
  fld: 'field',
  viw: 'view',
  rec: 'record',
  com: 'comment',
  att: 'attachment',
  usr: 'user',
  wsp: 'workspace',
  ach: 'webhook',
  ent: 'enterprise account',
  ugp: 'user group',
  inv: 'invite',
  shr: 'share',
  pbd: 'interface',
  bli: 'extension installation',
  alt: 'audit log request',
  ett: 'ediscovery export',
  dtb: 'data table',
};
