// Timeline: every tool call of this process, newest first, each with the upstream requests it caused. Filters by
// server, tool and outcome narrow the list; the arguments, the result and request bodies open on demand.

import { useMemo, useState } from 'preact/hooks';
import { api, type Call, errorText, type Info, OUTCOMES } from './api.js';
import { ErrorNote, formatDuration, formatTime, JsonDetails, UpstreamTable } from './parts.js';

const ALL = '';

function CallEntry(props: { call: Call }) {
  const { call } = props;
  return (
    <article
      class={`call outcome-${call.outcome}`}
      data-call-id={call.id}
      data-tool={call.tool}
      data-outcome={call.outcome}
      aria-label={`${call.tool}: ${call.outcome}`}
    >
      <header class="call-head">
        <span class="time">{formatTime(call.startedAt)}</span>
        <strong class="tool">{call.tool}</strong>
        <span class="client">client: {call.client ?? 'unknown'}</span>
        <span class="duration">{formatDuration(call.durationMs)}</span>
        <span class={`badge outcome-badge outcome-${call.outcome}`}>
          {call.outcome.replace('_', ' ')}
          {call.errorKind ? ` (${call.errorKind})` : ''}
        </span>
        {call.parentId ? <span class="muted">run by call {call.parentId.slice(0, 8)}</span> : null}
      </header>
      <div class="call-body">
        <JsonDetails summary="Arguments" value={call.arguments} class="json call-arguments" />
        {call.outcome === 'running' ? null : (
          <JsonDetails
            summary={call.outcome === 'ok' ? 'Result' : 'Error'}
            value={call.result}
            class="json call-result"
          />
        )}
        <UpstreamTable requests={call.upstream} />
      </div>
    </article>
  );
}

export function TimelineView(props: { info: Info | undefined; calls: Call[]; onCleared: () => void }) {
  const [server, setServer] = useState(ALL);
  const [tool, setTool] = useState(ALL);
  const [outcome, setOutcome] = useState(ALL);
  const [error, setError] = useState<string | undefined>();

  const servers = useMemo(() => {
    const known = new Set(props.info?.servers.map((s) => s.prefix) ?? []);
    for (const call of props.calls) known.add(call.service);
    return [...known].sort();
  }, [props.info, props.calls]);
  const tools = useMemo(
    () =>
      [
        ...new Set(props.calls.filter((c) => server === ALL || c.service === server).map((c) => c.tool)),
      ].sort(),
    [props.calls, server],
  );
  const shown = props.calls
    .filter(
      (call) =>
        (server === ALL || call.service === server) &&
        (tool === ALL || call.tool === tool) &&
        (outcome === ALL || call.outcome === outcome),
    )
    .reverse();

  const clear = async () => {
    setError(undefined);
    try {
      await api.clearEvents();
      props.onCleared();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <>
      <h2>Timeline</h2>
      <p class="note" id="process-note">
        {props.info?.note ??
          'This timeline shows only the tool calls made to this process, not those of other Switchboard processes.'}
      </p>
      <form class="filters" aria-label="Filter calls" onSubmit={(e) => e.preventDefault()}>
        <label>
          Server
          <select id="filter-server" value={server} onChange={(e) => setServer(e.currentTarget.value)}>
            <option value={ALL}>All servers</option>
            {servers.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tool
          <select id="filter-tool" value={tool} onChange={(e) => setTool(e.currentTarget.value)}>
            <option value={ALL}>All tools</option>
            {tools.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Outcome
          <select id="filter-outcome" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>
            <option value={ALL}>All outcomes</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {o.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={clear}>
          Clear timeline
        </button>
      </form>
      <ErrorNote error={error} />
      <p class="muted" aria-live="polite">
        {shown.length === props.calls.length
          ? `${props.calls.length} call${props.calls.length === 1 ? '' : 's'}`
          : `${shown.length} of ${props.calls.length} calls`}
      </p>
      {props.calls.length === 0 ? (
        <p class="empty">
          No tool calls yet. Connect an agent to this server, or run a tool in the Playground.
        </p>
      ) : null}
      <div id="calls">
        {shown.map((call) => (
          <CallEntry key={call.id} call={call} />
        ))}
      </div>
    </>
  );
}
