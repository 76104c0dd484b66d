/**
 * Words the issue-desk seed is made of: support topics (several wordings of the same problem, so keyword
 * ranking has real competition), people, companies and canned agent replies.
 */

export interface SeedTopic {
  key: string;
  /** The team that usually owns this kind of issue. */
  team: string;
  tags: readonly string[];
  titles: readonly string[];
  summaries: readonly string[];
  details: readonly string[];
  steps: readonly (readonly string[])[];
  asks: readonly string[];
}

export const TEAM_NAMES = ['Support', 'Billing', 'Engineering', 'Success'] as const;

export const ISSUE_TAGS = [
  'bug',
  'billing',
  'sso',
  'export',
  'webhooks',
  'api',
  'performance',
  'mobile',
  'integrations',
  'feature-request',
  'onboarding',
  'urgent',
] as const;

export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;

export const SEED_TOPICS: readonly SeedTopic[] = [
  {
    key: 'sso',
    team: 'Engineering',
    tags: ['sso', 'bug'],
    titles: [
      'SSO login fails with "invalid SAML response"',
      'Users cannot log in through {idp} SSO',
      'SSO login loops back to the sign-in page',
      'Single sign-on broken after we rotated the {idp} certificate',
      'SAML login fails for new members of {company}',
      'SSO login error: assertion expired',
    ],
    summaries: [
      'Since this morning nobody on our team can log in with SSO through {idp}.',
      'Our {idp} single sign-on stopped working and people are stuck on the login page.',
      'Logging in with SAML SSO fails for about half of our users; the others get in fine.',
      'After the {idp} certificate rotation, SSO login returns an error instead of the dashboard.',
    ],
    details: [
      'The error page says "invalid SAML response" and shows the reference code {code}.',
      'Password login still works for admins, so this looks specific to the SSO flow.',
      'We double-checked the entity ID and the ACS URL in {idp}; nothing changed on our side.',
      'The browser ends up in a redirect loop between {idp} and the login screen.',
    ],
    steps: [
      [
        'Open the workspace login page',
        'Click "Continue with SSO"',
        'Authenticate in {idp}',
        'Land back on the login page with an error',
      ],
      [
        'Remove the session cookies',
        'Start an SSO login from the {idp} dashboard',
        'Watch the redirect loop',
      ],
    ],
    asks: [
      'Could you check the SSO logs on your side? This is blocking {n} people.',
      'Please let us know if we need to upload new SAML metadata.',
      'Is there a known SSO incident right now?',
    ],
  },
  {
    key: 'csv_export',
    team: 'Engineering',
    tags: ['export', 'performance'],
    titles: [
      'CSV export times out for large reports',
      'Export to CSV never finishes',
      'Timeout when exporting the {report} report as CSV',
      'CSV export stuck at 99% then fails',
      'Scheduled CSV export arrives empty',
      'Large CSV exports fail with a gateway timeout',
    ],
    summaries: [
      'Exporting the {report} report to CSV spins for a few minutes and then times out.',
      'Our nightly CSV export has not arrived for the last {n} days.',
      'Any CSV export bigger than roughly {n}k rows fails with a timeout.',
      'The export to CSV button works for small date ranges but times out for a full quarter.',
    ],
    details: [
      'The browser shows "504 Gateway Timeout" after about two minutes.',
      'Smaller exports (one week of data) finish in seconds, so size seems to matter.',
      'The scheduled export email arrives, but the attached CSV file only has the header row.',
      'We need this CSV export for our finance close, so it is time sensitive.',
    ],
    steps: [
      [
        'Open Reports > {report}',
        'Select the last 90 days',
        'Click Export > CSV',
        'Wait until the request times out',
      ],
      ['Schedule a daily CSV export', 'Wait for the next run', 'Open the attachment: it is empty'],
    ],
    asks: [
      'Is there a row limit on CSV exports that we are hitting?',
      'Could you run the export for us in the meantime?',
      'Please advise on a workaround for the export timeout.',
    ],
  },
  {
    key: 'webhooks',
    team: 'Engineering',
    tags: ['webhooks', 'api'],
    titles: [
      'Webhook retries are flooding our endpoint',
      'Webhooks not retried after our endpoint returned 503',
      'Duplicate webhook deliveries after retries',
      'Webhook signature check fails on retried events',
      'Webhook retries stopped after a short outage',
      'How do webhook retries and backoff work?',
    ],
    summaries: [
      'Our webhook endpoint had a brief outage and now we receive each event several times from the retries.',
      'Events that failed with a 503 were never retried, so we lost {n} webhook deliveries.',
      'Retried webhook events carry a signature that does not validate with our signing secret.',
      'We want to understand the retry schedule for webhooks before we go live.',
    ],
    details: [
      'Our endpoint is {endpoint} and it answered 503 for about ten minutes.',
      'The delivery log shows {n} attempts for the same event ID within a minute.',
      'We verify signatures with the secret from the webhook settings page; first deliveries pass.',
      'We would prefer exponential backoff rather than immediate retries.',
    ],
    steps: [
      [
        'Make the endpoint return 503',
        'Trigger an event',
        'Restore the endpoint',
        'Compare the deliveries we received',
      ],
      [
        'Trigger a test webhook',
        'Force a failure on the first attempt',
        'Validate the signature of the retry',
      ],
    ],
    asks: [
      'Can you replay the missed webhook events?',
      'Please confirm how many retries happen and over what period.',
      'Could you disable the webhook retries for this endpoint while we investigate?',
    ],
  },
  {
    key: 'invoice',
    team: 'Billing',
    tags: ['billing'],
    titles: [
      'Invoice shows the wrong number of seats',
      'Billing invoice is missing our VAT number',
      'We were charged twice on the latest invoice',
      'Need a copy of last month\u2019s invoice',
      'Invoice amount does not match our plan',
      'Update billing address on future invoices',
    ],
    summaries: [
      'Our latest invoice bills us for {n} seats but we only have {m} active members.',
      'The invoice for this month does not include our VAT number, so finance cannot book it.',
      'Our card was charged twice for the same billing period.',
      'Our finance team needs a PDF copy of the invoice for {month}.',
    ],
    details: [
      'The invoice number is INV-{code}; the billing contact is on this email thread.',
      'We are on the {plan} plan, billed annually.',
      'The duplicate charge shows on our card statement as two identical amounts on the same day.',
      'We changed our billing address last week; the new invoice still shows the old one.',
    ],
    steps: [
      [
        'Open Settings > Billing',
        'Download the latest invoice',
        'Compare the seat count with the members page',
      ],
    ],
    asks: [
      'Could you issue a corrected invoice?',
      'Please refund the duplicate charge.',
      'Can you add the VAT number and resend the invoice?',
    ],
  },
  {
    key: 'rate_limit',
    team: 'Engineering',
    tags: ['api', 'performance'],
    titles: [
      'API returns 429 rate limit errors during sync',
      'Rate limit too low for our nightly import',
      'Getting "too many requests" from the API',
      'Request a higher API rate limit',
    ],
    summaries: [
      'Our integration hits 429 rate limit errors a few minutes into the nightly sync.',
      'We regularly get "too many requests" from the API even though we stay under the documented limit.',
      'We would like to request a higher API rate limit for our data sync.',
    ],
    details: [
      'We send about {n} requests per minute from a single API token.',
      'The 429 responses include a Retry-After header of {m} seconds.',
      'We already back off and retry, but the sync now takes hours.',
    ],
    steps: [['Start the nightly sync job', 'Watch the API responses', 'See 429 errors after a few minutes']],
    asks: ['Can the API rate limit be raised for our account?', 'Which endpoints share the same rate limit?'],
  },
  {
    key: 'password_reset',
    team: 'Support',
    tags: ['bug', 'onboarding'],
    titles: [
      'Password reset email never arrives',
      'Reset password link has already expired',
      'Cannot reset password for a new user',
      'Password reset email goes to spam',
    ],
    summaries: [
      'One of our members requested a password reset several times but the email never arrives.',
      'The reset password link says it has expired right after it was sent.',
      'A new user cannot set a password: the reset email does not show up.',
    ],
    details: [
      'We checked spam folders and our mail gateway logs; nothing from your domain arrived.',
      'The link expires even when clicked within a minute of receiving the email.',
      'Other notification emails from you arrive normally.',
    ],
    steps: [
      ['Go to the login page', 'Click "Forgot password"', 'Enter the email address', 'Wait for the email'],
    ],
    asks: ['Could you check whether the reset emails are bouncing?', 'Can you send a manual reset link?'],
  },
  {
    key: 'dashboard_slow',
    team: 'Engineering',
    tags: ['performance'],
    titles: [
      'Dashboard takes 30 seconds to load',
      'Analytics dashboard very slow since the last update',
      'Dashboard widgets time out',
      'Slow dashboard for workspaces with many projects',
    ],
    summaries: [
      'The main dashboard has become very slow and often takes more than 30 seconds to load.',
      'Since the latest release the analytics dashboard is painfully slow for everyone on our team.',
      'Several dashboard widgets show a timeout message instead of data.',
    ],
    details: [
      'It is slow in {browser} and in the desktop app alike.',
      'We have about {n} projects in the workspace.',
      'The network tab shows one request taking most of the time.',
    ],
    steps: [['Log in', 'Open the dashboard', 'Wait for the widgets to load']],
    asks: [
      'Is this a known performance regression?',
      'Anything we can do to speed up the dashboard meanwhile?',
    ],
  },
  {
    key: 'mobile_crash',
    team: 'Engineering',
    tags: ['mobile', 'bug'],
    titles: [
      'iOS app crashes on launch',
      'Android app crashes when opening attachments',
      'Mobile app crash after the latest update',
      'App closes itself when switching workspaces',
    ],
    summaries: [
      'The iOS app crashes immediately after the splash screen for several people on our team.',
      'On Android, opening any attachment closes the app.',
      'Since updating the mobile app to the latest version it crashes when switching workspaces.',
    ],
    details: [
      'Devices affected: iPhone 13 and iPhone 15 on iOS 17.',
      'Reinstalling the app did not help.',
      'We can share a crash report if that helps; crash ID {code}.',
    ],
    steps: [['Open the mobile app', 'Sign in', 'Open an attachment or switch workspace', 'The app crashes']],
    asks: ['Is a fix for the mobile crash planned?', 'Should we roll back to the previous app version?'],
  },
  {
    key: 'permissions',
    team: 'Support',
    tags: ['bug', 'onboarding'],
    titles: [
      'Admin role cannot invite new members',
      'Viewer role is able to edit records',
      'Permissions not applied after changing a member role',
      'Custom role missing the export permission',
    ],
    summaries: [
      'Our admins get a "permission denied" error when inviting new members.',
      'Members with the viewer role can edit records, which they should not be able to do.',
      'We changed a member\u2019s role but the old permissions still apply.',
    ],
    details: [
      'This affects {n} admins in the {company} workspace.',
      'Logging out and back in did not refresh the permissions.',
      'We rely on the viewer role for external contractors, so this is a compliance concern.',
    ],
    steps: [
      ['Open Settings > Members', 'Change the role of a member', 'Log in as that member', 'Try the action'],
    ],
    asks: [
      'Can you confirm whether this is a permissions bug?',
      'Please let us know when the roles are fixed.',
    ],
  },
  {
    key: 'csv_import',
    team: 'Support',
    tags: ['bug', 'onboarding'],
    titles: [
      'CSV import fails with an encoding error',
      'Import skips rows with empty fields',
      'CSV import maps columns to the wrong fields',
      'Importing contacts from CSV creates duplicates',
    ],
    summaries: [
      'Importing our contact list from a CSV file fails with an encoding error.',
      'The CSV import silently skips every row where a field is empty.',
      'The importer assigns our CSV columns to the wrong fields.',
    ],
    details: [
      'The file is UTF-8 exported from a spreadsheet and has about {n} rows.',
      'Names with accents (for example Jos\u00e9) seem to break it.',
      'We tried both comma and semicolon separators.',
    ],
    steps: [
      ['Open Import', 'Upload the CSV file', 'Map the columns', 'Start the import and check the result'],
    ],
    asks: ['Could you look at the file if we send it over?', 'Is there a template for the CSV import?'],
  },
  {
    key: 'slack_integration',
    team: 'Success',
    tags: ['integrations'],
    titles: [
      'Slack notifications stopped arriving',
      'Slack integration posts to the wrong channel',
      'Reconnect Slack integration after workspace migration',
      'Slack alerts duplicated in two channels',
    ],
    summaries: [
      'We stopped receiving Slack notifications a few days ago.',
      'The Slack integration posts updates to #{channel} instead of the channel we configured.',
      'We migrated our Slack workspace and need to reconnect the integration.',
    ],
    details: [
      'The integration page still shows Slack as connected.',
      'We reinstalled the Slack app but nothing changed.',
      'Our channel is #{channel}; it is a private channel.',
    ],
    steps: [['Open Settings > Integrations > Slack', 'Send a test notification', 'Check the Slack channel']],
    asks: [
      'Can you check the Slack integration logs?',
      'How do we move the integration to the new workspace?',
    ],
  },
  {
    key: 'email_delay',
    team: 'Support',
    tags: ['performance'],
    titles: [
      'Email notifications delayed by hours',
      'Notification emails arrive out of order',
      'Digest email not sent this week',
    ],
    summaries: [
      'Email notifications reach us several hours after the event happened.',
      'The daily digest email was not sent this week.',
      'Notification emails arrive out of order, which confuses our team.',
    ],
    details: [
      'The delay started on {month} {day}.',
      'Our mail server shows the emails arriving late, not queued on our side.',
    ],
    steps: [['Trigger a notification', 'Note the time', 'Compare with when the email arrives']],
    asks: ['Is there a delay in email delivery right now?', 'Could you resend the missed digest?'],
  },
  {
    key: 'data_deletion',
    team: 'Success',
    tags: ['onboarding'],
    titles: [
      'GDPR data deletion request for a former employee',
      'Delete our trial workspace and all data',
      'Data export before account closure',
    ],
    summaries: [
      'We need all personal data of a former employee deleted under GDPR.',
      'Please delete our old trial workspace and everything in it.',
      'Before we close the account we need a full data export.',
    ],
    details: [
      'The person\u2019s email address is in the request form we attached.',
      'The trial workspace is called "{company} trial".',
      'We need confirmation in writing once the deletion is complete.',
    ],
    steps: [],
    asks: ['How long does the deletion take?', 'Please confirm once the data has been removed.'],
  },
  {
    key: 'feature_request',
    team: 'Success',
    tags: ['feature-request'],
    titles: [
      'Feature request: dark mode',
      'Feature request: export audit log to CSV',
      'Feature request: bulk edit for tags',
      'Feature request: webhook for deleted records',
      'Feature request: SSO enforcement per workspace',
    ],
    summaries: [
      'Our team would love a dark mode for the web app.',
      'We need to export the audit log to CSV for our security reviews.',
      'Editing tags one record at a time is slow; bulk edit would save us hours.',
      'It would help if a webhook fired when a record is deleted.',
    ],
    details: [
      'Several people asked for this in our internal survey.',
      'Our security team requires this before renewing the {plan} plan.',
      'Right now we work around it with a script against the API.',
    ],
    steps: [],
    asks: ['Is this on the roadmap?', 'Happy to join a call to discuss the use case.'],
  },
];

export const AGENT_REPLIES: readonly string[] = [
  '<p>Hi {first},</p><p>Thanks for the detailed report. I can reproduce this and I have shared it with our engineers. I will update you here as soon as I know more.</p>',
  '<p>Hi {first},</p><p>Thanks for reaching out. Could you send us a screenshot and the approximate time it last happened? That will help us find it in the logs.</p>',
  '<p>Hello {first},</p><p>We found the cause and a fix is being rolled out today. Please let us know if you still see the problem tomorrow.</p>',
  '<p>Hi {first},</p><p>I have applied a change to your workspace. Could you try again and confirm that it works now?</p>',
  '<p>Hi {first},</p><p>Good news: this is resolved. I am closing this issue, but just reply here if anything comes up again.</p>',
];

export const CUSTOMER_FOLLOW_UPS: readonly string[] = [
  '<p>Thanks! I tried again and it still fails for me. Attaching a screenshot.</p>',
  '<p>That worked, thank you for the quick help.</p>',
  '<p>Any update on this? It is still affecting our team.</p>',
  '<p>Here is the information you asked for: it happened around 10:30 UTC.</p>',
];

export const INTERNAL_NOTES: readonly string[] = [
  '<p>Reproduced on staging. Linked to ENG-{code}.</p>',
  '<p>Customer is on the {plan} plan and renewal is next month; please prioritise.</p>',
  '<p>Looks like the same root cause as issue #{n}. Checking with the on-call engineer.</p>',
  '<p>Escalated to the account manager. <b>Do not</b> promise a date yet.</p>',
  '<ul><li>Checked logs: no errors on our side</li><li>Asked the customer for a HAR file</li></ul>',
];

export const CSAT_COMMENTS: readonly string[] = [
  'Quick and helpful, thanks!',
  'Took a while but it got solved.',
  'The workaround is fine for now.',
  'Still not happy with how long this took.',
  '',
];

export const IDENTITY_PROVIDERS = ['Okta', 'Azure AD', 'Google Workspace', 'OneLogin'] as const;
export const BROWSERS = ['Chrome 126', 'Firefox 127', 'Safari 17', 'Edge 125'] as const;
export const PLANS = ['Starter', 'Growth', 'Business', 'Enterprise'] as const;
export const REPORTS = ['Monthly revenue', 'Ticket volume', 'Active users', 'Pipeline by stage'] as const;
export const CHANNELS = ['support-alerts', 'ops', 'general', 'customer-feedback'] as const;
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August'] as const;

export const ORG_NAME = 'Lumen Labs';
export const ORG_DOMAIN = 'lumenlabs.example';

/** Agents of the org. Near-identical pairs ("Ana Lima"/"Anna Lim", "John Parker"/"Jon Park") are deliberate. */
export const USER_NAMES = [
  'Ana Lima',
  'Anna Lim',
  'Marcus Chen',
  'Priya Natarajan',
  'Jonas Weber',
  'Sofia Rossi',
  'Kwame Mensah',
  'Emily Carter',
  'John Parker',
  'Jon Park',
  'Fatima Haddad',
  'Diego Alvarez',
] as const;

export const COMPANIES: readonly { name: string; domain: string }[] = [
  { name: 'Acme Corp', domain: 'acme.example' },
  { name: 'Globex', domain: 'globex.example' },
  { name: 'Initech', domain: 'initech.example' },
  { name: 'Umbrella Health', domain: 'umbrella-health.example' },
  { name: 'Stark Logistics', domain: 'starklogistics.example' },
  { name: 'Wayne Analytics', domain: 'wayne-analytics.example' },
  { name: 'Hooli', domain: 'hooli.example' },
  { name: 'Soylent Foods', domain: 'soylent.example' },
  { name: 'Tyrell Robotics', domain: 'tyrell.example' },
  { name: 'Cyberdyne Systems', domain: 'cyberdyne.example' },
];

export const CONTACT_FIRST_NAMES = [
  'Olivia',
  'Liam',
  'Amara',
  'Noah',
  'Mei',
  'Lucas',
  'Zara',
  'Mateo',
  'Hana',
  'Ethan',
  'Chloe',
  'Arjun',
  'Leila',
  'Oscar',
  'Ines',
  'Tomás',
  'Yuki',
  'Samuel',
  'Nadia',
  'Felix',
  'Grace',
  'Omar',
  'Elena',
  'Hugo',
  'Aisha',
  'Viktor',
  'Maya',
  'Daniel',
  'Sara',
  'Kenji',
] as const;

export const CONTACT_LAST_NAMES = [
  'Johnson',
  'Okafor',
  'Nguyen',
  'Schmidt',
  'Garcia',
  'Kowalski',
  'Tanaka',
  'Dubois',
  'Silva',
  'Brown',
  'Ivanova',
  'Hughes',
  'Moreau',
  'Patel',
  'Larsen',
  'Costa',
  'Novak',
  'Ahmed',
  'Fischer',
  'Murphy',
] as const;
