// Controls: per emulator, faults for the next requests (the form is built from the fault kinds the server
// describes, so it offers exactly what the emulator's control API takes), its rate limits, the limits the
// upstream itself enforces (the store's per base; a form built from the fields the server describes), and reset
// with reseed.

import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  api,
  errorText,
  type FaultField,
  type FaultKind,
  type FaultRule,
  type Info,
  type RateLimitConfig,
  type UpstreamLimit,
  type UpstreamLimitField,
  type UpstreamLimitSettings,
} from './api.js';
import { ErrorNote, FormOutcome, useSettingsForm, useViewRefresh } from './parts.js';

const isNumeric = (field: FaultField) => /int|number/i.test(field.type);
const isBoolean = (field: FaultField) => /bool/i.test(field.type);

/** The rule as the emulator reports it, less the `index` it adds (its position, not a setting). */
function storedRule(rule: FaultRule): FaultRule {
  const { index: _index, ...rest } = rule;
  return rest as FaultRule;
}

function ruleText(rule: FaultRule): string {
  return Object.entries(storedRule(rule))
    .filter(([key]) => key !== 'kind')
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(', ');
}

function FaultsPanel(props: { service: string; active: boolean; refresh: number }) {
  const { service } = props;
  const [kinds, setKinds] = useState<FaultKind[]>([]);
  const [kind, setKind] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [rules, setRules] = useState<FaultRule[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [status, setStatus] = useState('');

  useEffect(() => {
    if (!props.active) return;
    api.faultKinds(service).then(
      (answer) => {
        setKinds(answer.kinds);
        setKind((old) => old || (answer.kinds[0]?.kind ?? ''));
      },
      (e) => setError(errorText(e)),
    );
  }, [service, props.active]);
  // Again after calls end and now and then: a rule for the next N requests is gone once they came.
  useEffect(() => {
    if (!props.active) return;
    api.faults(service).then(
      (answer) => setRules(answer.rules),
      (e) => setError(errorText(e)),
    );
  }, [service, props.active, props.refresh]);

  const fields = kinds.find((k) => k.kind === kind)?.fields ?? [];
  const id = (name: string) => `fault-${service}-${name}`;

  const add = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const rule: FaultRule = { kind };
    for (const field of fields) {
      const raw = values[field.name]?.trim() ?? '';
      if (raw === '') continue;
      if (isBoolean(field)) rule[field.name] = raw === 'true';
      else if (isNumeric(field)) rule[field.name] = Number(raw);
      else rule[field.name] = raw;
    }
    try {
      // Added by the emulator, not sent back as the list read earlier plus this rule: requests since that read
      // (this server's, or anyone's) may have used rules up, and sending them back would revive them.
      const answer = await api.addFaults(service, [rule]);
      setRules(answer.rules);
      setStatus(`Fault added: ${kind}.`);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const clear = async () => {
    setError(undefined);
    try {
      setRules((await api.clearFaults(service)).rules);
      setStatus('Faults cleared.');
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div class="panel">
      <h4>Faults</h4>
      <form class="fault-form" onSubmit={add} aria-label={`Add a fault to ${service}`}>
        <label for={id('kind')}>Kind</label>
        <select id={id('kind')} value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
          {kinds.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.kind}
            </option>
          ))}
        </select>
        {fields.map((field) => (
          <Fragment key={field.name}>
            <label for={id(field.name)}>
              {field.name}
              {field.required ? ' (required)' : ''}
            </label>
            <span class="field">
              {field.choices ? (
                <select
                  id={id(field.name)}
                  value={values[field.name] ?? ''}
                  onChange={(e) => setValues({ ...values, [field.name]: e.currentTarget.value })}
                >
                  <option value="">(default)</option>
                  {field.choices.map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              ) : isBoolean(field) ? (
                <select
                  id={id(field.name)}
                  value={values[field.name] ?? ''}
                  onChange={(e) => setValues({ ...values, [field.name]: e.currentTarget.value })}
                >
                  <option value="">(default)</option>
                  <option value="true">yes</option>
                  <option value="false">no</option>
                </select>
              ) : (
                <input
                  id={id(field.name)}
                  type={isNumeric(field) ? 'number' : 'text'}
                  required={field.required}
                  value={values[field.name] ?? ''}
                  onInput={(e) => setValues({ ...values, [field.name]: e.currentTarget.value })}
                  aria-describedby={helpIdOf(field, id)}
                />
              )}
              <FieldHelp id={`${id(field.name)}-help`} text={field.description} />
            </span>
          </Fragment>
        ))}
        <span />
        <span>
          <button type="submit" id={id('add')} disabled={kind === ''}>
            Add fault
          </button>
        </span>
      </form>
      <FormOutcome error={error} status={status} />
      {rules.length === 0 ? (
        <p class="muted" id={`faults-${service}-none`}>
          No faults set: requests are answered normally.
        </p>
      ) : (
        <>
          <ul class="rules" id={`faults-${service}`}>
            {rules.map((rule, i) => (
              <li key={i} data-kind={rule.kind}>
                <strong>{rule.kind}</strong> {ruleText(rule)}
              </li>
            ))}
          </ul>
          <button type="button" onClick={clear} id={id('clear')}>
            Clear faults
          </button>
        </>
      )}
    </div>
  );
}

function RateLimitsPanel(props: { service: string; active: boolean; refresh: number }) {
  const { service } = props;
  const form = useSettingsForm<RateLimitConfig>();
  const config = form.value;
  const [error, setError] = useState<string | undefined>();
  const [status, setStatus] = useState('');

  useEffect(() => {
    if (!props.active) return;
    api.rateLimits(service).then(form.read, (e) => setError(errorText(e)));
  }, [service, props.active, props.refresh]);

  if (!config) return <ErrorNote error={error} />;
  const id = (name: string) => `limits-${service}-${name}`;

  const save = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    // Cleared first, so that saving the same setting twice still shows that the second save happened.
    setStatus('');
    try {
      const saved = await form.save(() =>
        api.setRateLimits(service, {
          enabled: config.enabled,
          mode: config.mode,
          limits: config.limits,
        }),
      );
      setStatus(saved.enabled ? 'Rate limits on.' : 'Rate limits off.');
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div class="panel">
      <h4>Rate limits</h4>
      <form onSubmit={save} aria-label={`Rate limits of ${service}`}>
        <p>
          <label>
            <input
              type="checkbox"
              id={id('enabled')}
              checked={config.enabled}
              onChange={(e) => form.edit({ ...config, enabled: e.currentTarget.checked })}
            />{' '}
            Enforce the upstream's rate limits
          </label>
        </p>
        <p>
          <label>
            Window{' '}
            <select
              id={id('mode')}
              value={config.mode}
              onChange={(e) => form.edit({ ...config, mode: e.currentTarget.value })}
            >
              <option value="fixed">fixed</option>
              <option value="sliding">sliding</option>
            </select>
          </label>{' '}
          {config.windowSeconds ? <span class="muted">of {config.windowSeconds} s</span> : null}
        </p>
        {config.defaultLimit !== undefined ? (
          <p class="muted">
            Other routes: {config.defaultLimit} requests per window
            {config.penaltyMs !== undefined
              ? `; a refusal locks the key for ${config.penaltyMs / 1000} s`
              : ''}
            .
          </p>
        ) : null}
        {Object.keys(config.limits).length === 0 ? (
          <p class="muted">No per-route limits are set for this emulator.</p>
        ) : null}
        <details id={id('routes')} hidden={Object.keys(config.limits).length === 0}>
          <summary>Requests allowed per window, by route ({Object.keys(config.limits).length})</summary>
          <table class="limits">
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">Allowed</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(config.limits).map(([route, limit]) => (
                <tr key={route}>
                  <td>
                    <label for={`${id('route')}-${route}`}>
                      <code>{route}</code>
                    </label>
                  </td>
                  <td>
                    <input
                      id={`${id('route')}-${route}`}
                      type="number"
                      min={0}
                      value={limit}
                      onInput={(e) =>
                        form.edit({
                          ...config,
                          limits: { ...config.limits, [route]: Number(e.currentTarget.value) },
                        })
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
        <button type="submit" id={id('save')}>
          Save rate limits
        </button>
        <Unsaved id={id('unsaved')} shown={form.unsaved} />
      </form>
      <FormOutcome error={error} status={status} />
    </div>
  );
}

/** Beside a settings form's save button while it holds edits that are not stored yet. */
function Unsaved(props: { id: string; shown: boolean }) {
  return props.shown ? (
    <span class="muted" id={props.id}>
      {' '}
      Not saved yet.
    </span>
  ) : null;
}

type Draft = Record<string, string | boolean>;

/** The form's values from the emulator's settings: checkboxes as booleans, numbers as the text of their inputs. */
function draftOf(limit: UpstreamLimit, settings: UpstreamLimitSettings): Draft {
  const draft: Draft = {};
  for (const field of limit.fields) {
    const value = settings[field.name];
    draft[field.name] = field.type === 'boolean' ? value === true : value === undefined ? '' : String(value);
  }
  return draft;
}

function settingText(field: UpstreamLimitField, value: unknown): string {
  if (field.type === 'boolean') return value === true ? 'yes' : 'no';
  return value === undefined ? '(not set)' : String(value);
}

function UpstreamLimitPanel(props: { service: string; limit: UpstreamLimit; onSaved: () => void }) {
  const { service, limit } = props;
  const form = useSettingsForm<Draft>(() => draftOf(limit, limit.settings));
  const draft = form.value!;
  // Re-read after each save, after calls end and now and then; shown in the form unless it has unsaved edits.
  useEffect(() => form.read(draftOf(limit, limit.settings)), [limit.settings]);
  const [error, setError] = useState<string | undefined>();
  const [status, setStatus] = useState('');
  const id = (name: string) => `upstream-${service}-${limit.name}-${name}`;
  const penalized = Array.isArray(limit.settings.penalized)
    ? (limit.settings.penalized as { baseId?: string; until?: string }[])
    : [];

  const save = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    const update: UpstreamLimitSettings = {};
    for (const field of limit.fields) {
      const value = draft[field.name];
      if (field.type === 'boolean') update[field.name] = value === true;
      else if (typeof value === 'string' && value.trim() !== '') update[field.name] = Number(value);
    }
    setStatus('');
    try {
      await form.save(async () => draftOf(limit, await api.setUpstreamLimit(service, limit.name, update)));
      setStatus(`${limit.title} saved.`);
      props.onSaved();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const clear = async () => {
    setError(undefined);
    try {
      await api.clearUpstreamLimit(service, limit.name);
      setStatus('Counters and penalties cleared.');
      props.onSaved();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div class="panel" id={id('panel')}>
      <h4>Upstream limit: {limit.title.toLowerCase()}</h4>
      <p class="upstream-reference" id={id('upstream')}>
        Upstream: {limit.upstream}.
      </p>
      <p class="muted" id={id('now')}>
        Now:{' '}
        {limit.fields
          .map((field) => `${field.label.toLowerCase()}: ${settingText(field, limit.settings[field.name])}`)
          .join('; ')}
        .
      </p>
      <form class="upstream-form" onSubmit={save} aria-label={`${limit.title} of ${service}`}>
        {limit.fields.map((field) =>
          field.type === 'boolean' ? (
            <p key={field.name}>
              <label>
                <input
                  type="checkbox"
                  id={id(field.name)}
                  checked={draft[field.name] === true}
                  onChange={(e) => form.edit({ ...draft, [field.name]: e.currentTarget.checked })}
                  aria-describedby={helpIdOf(field, id)}
                />{' '}
                {field.label}
              </label>
              <FieldHelp id={`${id(field.name)}-help`} text={field.description} />
            </p>
          ) : (
            <p key={field.name}>
              <label for={id(field.name)}>{field.label}</label>
              <input
                id={id(field.name)}
                type="number"
                min={field.min}
                max={field.max}
                value={String(draft[field.name] ?? '')}
                onInput={(e) => form.edit({ ...draft, [field.name]: e.currentTarget.value })}
                aria-describedby={helpIdOf(field, id)}
              />
              <FieldHelp id={`${id(field.name)}-help`} text={field.description} />
            </p>
          ),
        )}
        <button type="submit" id={id('save')}>
          Save {limit.title.toLowerCase()}
        </button>
        <Unsaved id={id('unsaved')} shown={form.unsaved} />
      </form>
      {penalized.length > 0 ? (
        <>
          <p id={id('penalized')}>
            In the penalty now:{' '}
            {penalized
              .map(
                (entry) =>
                  `${entry.baseId ?? '?'}${entry.until ? ` until ${new Date(entry.until).toLocaleTimeString(undefined, { hour12: false })}` : ''}`,
              )
              .join(', ')}
          </p>
          <button type="button" onClick={clear} id={id('clear')}>
            Clear counters and penalties
          </button>
        </>
      ) : null}
      <FormOutcome error={error} status={status} />
    </div>
  );
}

/** The limits the upstream itself enforces, for emulators that have any (nothing is shown for the others). */
function UpstreamLimitsPanels(props: { service: string; active: boolean; refresh: number }) {
  const { service } = props;
  const [limits, setLimits] = useState<UpstreamLimit[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(0);

  // Again after calls end and now and then (a base may have gone into its penalty), and after a save.
  useEffect(() => {
    if (!props.active) return;
    api.upstreamLimits(service).then(
      (answer) => setLimits(answer.limits),
      (e) => setError(errorText(e)),
    );
  }, [service, props.active, props.refresh, saved]);

  return (
    <>
      {limits.map((limit) => (
        <UpstreamLimitPanel
          key={limit.name}
          service={service}
          limit={limit}
          onSaved={() => setSaved((n) => n + 1)}
        />
      ))}
      <ErrorNote error={error} />
    </>
  );
}

function ResetPanel(props: { service: string }) {
  const { service } = props;
  const [seed, setSeed] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [status, setStatus] = useState('');
  const id = `reset-${service}`;

  const reset = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setStatus('Resetting…');
    try {
      await api.reset(service, seed.trim() === '' ? undefined : Number(seed));
      setStatus(`Reset and reseeded at ${new Date().toLocaleTimeString(undefined, { hour12: false })}.`);
    } catch (e) {
      setStatus('');
      setError(errorText(e));
    }
  };

  return (
    <div class="panel">
      <h4>Reset</h4>
      <form onSubmit={reset} aria-label={`Reset ${service}`}>
        <p>
          <label for={`${id}-seed`}>Seed</label>{' '}
          <input
            id={`${id}-seed`}
            type="number"
            placeholder="as started"
            value={seed}
            onInput={(e) => setSeed(e.currentTarget.value)}
          />{' '}
          <button type="submit" id={`${id}-button`}>
            Reset and reseed
          </button>
        </p>
        <p class="muted">Replaces all of this emulator's data with freshly seeded data.</p>
      </form>
      <FormOutcome error={error} status={status} />
    </div>
  );
}

export function ControlsView(props: { info: Info | undefined; active: boolean; endedCount: number }) {
  const emulators = props.info?.emulators ?? [];
  const refresh = useViewRefresh(props.active, props.endedCount);
  return (
    <>
      <h2>Controls</h2>
      <p class="muted">
        Faults and rate limits apply to requests reaching the emulators, whoever sends them: the tools of this
        server, another process on the same sandbox, or your own code.
      </p>
      {emulators.length === 0 ? <p class="muted">No emulators in this process.</p> : null}
      {emulators.map((emulator) => (
        <section key={emulator.service} class="emulator" aria-labelledby={`emulator-${emulator.service}`}>
          <h3 id={`emulator-${emulator.service}`}>
            {emulator.title} <span class="muted">({emulator.service})</span>
          </h3>
          <div class="panels">
            <FaultsPanel service={emulator.service} active={props.active} refresh={refresh} />
            <RateLimitsPanel service={emulator.service} active={props.active} refresh={refresh} />
            <UpstreamLimitsPanels service={emulator.service} active={props.active} refresh={refresh} />
            <ResetPanel service={emulator.service} />
          </div>
        </section>
      ))}
    </>
  );
}

/** The id of a field's help line, when it has one: what its input is described by. */
function helpIdOf(
  field: { name: string; description?: string },
  id: (name: string) => string,
): string | undefined {
  return field.description ? `${id(field.name)}-help` : undefined;
}

/** A field's help line under its input (nothing when the field has no description). */
function FieldHelp({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <small id={id} class="muted">
      {text}
    </small>
  ) : null;
}
