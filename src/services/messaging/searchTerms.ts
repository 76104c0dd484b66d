// The words people use for each MessagingTrackApi tool that its title and description leave out (everyday, vendor and
// neighbouring-product words, and what tells it from its near neighbours). search_tools indexes them in discovery
// mode (runtime/toolSearch.ts); tools/list never shows them, so they cost an agent no tokens. Written from what
// each tool does, not from the discovery fixture's tasks.

export const MESSAGING_SEARCH_TERMS: Readonly<Record<string, string>> = {
  GetTrackApiRegion:
    'US or EU, data center, datacenter, base URL, endpoint host, which server, site ID, is the key working, test connection, ping, verify setup, data residency, EU host, environment id, Customer.io, account location, whoami',
  UpdateOrAddPerson:
    'identify, upsert, create customer, new profile, sign up, register user, traits, properties, profile fields, set plan, subscriber, contact record, rename, edit profile, sync user data, only sent fields modified, single profile, Segment identify, Customer.io identify, Intercom user, cio_id, created_at',
  DeleteCustomer:
    'remove profile, erase, wipe, purge, destroy, GDPR, right to be forgotten, forget user, offboard, close account, deletion request, can come back later, not blocked, may re-identify, Customer.io, user profile, subscriber',
  AddDeviceToCustomerProfile:
    'push token, push registration, iOS, Android, APNs, FCM, mobile app, phone, push notifications, app install, last used, platform, enable push, smartphone, app version, os version, Customer.io',
  RemoveCustomerDevice:
    'unregister, delete push registration, logout, uninstalled app, stop push, stale, dead push, iOS, Android, FCM, APNs, phone, mobile app, detach, revoke, Customer.io',
  SuppressCustomerProfile:
    'never contact again, do not contact, blocklist, blacklist, ban, prevent re-adding, stop messages forever, spam complaint, erase and forbid, forget and keep out, cannot be re-created, hard erase, Customer.io, banned forever',
  UnsuppressCustomerProfile:
    'allow again, lift ban, undo, reverse, allowlist, whitelist, remove from blocklist, let them back, can be re-added, re-identify allowed, re-enable, mistaken ban, permit recreation, Customer.io',
  GlobalUnsubscribeUser:
    'opt out, stop all emails, opt-out link, email footer, subscription preferences, newsletter, marketing emails, CAN-SPAM, custom preference page, from a message, no more messages, message id, unsubscribed flag, Customer.io',
  SendCustomerEvent:
    'track, log activity, user action, custom action, pageview, mobile app navigation, known user, logged-in user, trigger campaign, so a campaign fires, purchase, upgraded plan, signed up, Segment track, behavioral data, conversion, identified user, Mixpanel, Customer.io',
  TrackAnonymousEvent:
    'logged-out, guest, unknown user, no account, cookie, anonymous_id, pre-signup, website browsing, before login, invite, merged later, lead, prospect, unauthenticated, page visit, Segment anonymousId, Customer.io',
  SubmitFormResponse:
    'submission, signup, lead capture, contact us page, survey answers, webform, Typeform, Webflow, HubSpot, newsletter signup, filled out, questionnaire, landing page, integration connection, entries, Customer.io',
  MergeCustomerProfiles:
    'duplicate, dedupe, deduplicate, combine, consolidate, unify, duplicate accounts, same user different emails, fold together, collapse, join records, Customer.io, cannot undo, same human twice, link identities, combine histories',
  ReportCustomMetrics:
    'opened, clicked, delivered, bounced, converted, email open, engagement, SMS, push, Slack, webhook, own provider, external ESP, third-party sender, message stats, tracking pixel, delivery_id, Customer.io',
  AddPeopleToSegment:
    'static list, audience, cohort, group, tag users, bulk insert, list membership, up to 1000, include, enroll, put into, mailing list, many at once, customers, users, Mailchimp list, Customer.io',
  RemoveUserFromSegment:
    'take out, exclude, drop from list, unenroll, static list, audience, cohort, bulk drop, list membership, up to 1000, kick out, pull out, mailing list, customers, many at once, Customer.io',
  ManageEntity:
    'custom object, company, account, relate to company, link, associate, unlink, B2B, identify company, create company, update company, one operation, one at a time, cio_relationships, device, suppress, Customer.io, Segment group',
  BatchProcessRequests:
    'bulk, bulk import, backfill, multiple, several, mass update, import list, sync lots, partial success, 207, per-item errors, combined, historical data, bulk identify, bulk events, array, in one call, single request, 500 KB, Customer.io',
};
