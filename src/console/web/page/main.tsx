// The sandbox console's page: four views over one live feed of tool calls. The feed (server-sent events, read by
// feed.ts) is held here, above the views, so the timeline, the playground (the upstream requests its run caused)
// and the state and controls views (refreshed when calls end) all read the same calls, and switching views loses
// nothing. On a protected server the page first asks for the bearer token /mcp takes.

import './console.css';
import { render } from 'preact';
import { useCallback, useEffect, useReducer, useState } from 'preact/hooks';
import {
  AuthorizationNeeded,
  accessToken,
  api,
  type Call,
  errorText,
  type Info,
  onAuthorizationNeeded,
  setAccessToken,
} from './api.js';
import { ControlsView } from './controls.js';
import { type FeedState, followFeed } from './feed.js';
import { ErrorNote } from './parts.js';
import { PlaygroundView } from './playground.js';
import { StateView } from './state.js';
import { TimelineView } from './timeline.js';

const VIEWS = [
  { id: 'timeline', label: 'Timeline' },
  { id: 'state', label: 'State' },
  { id: 'controls', label: 'Controls' },
  { id: 'playground', label: 'Playground' },
] as const;
type ViewId = (typeof VIEWS)[number]['id'];

function viewFromHash(): ViewId {
  const wanted = location.hash.replace(/^#/, '');
  return VIEWS.find((view) => view.id === wanted)?.id ?? 'timeline';
}

export interface Feed {
  /** Oldest first, as the server sends them. */
  calls: Call[];
  /** Bumped whenever a call ends: what the state and controls views refresh on. */
  endedCount: number;
}

type FeedAction = { type: 'backlog'; calls: Call[] } | { type: 'call'; call: Call } | { type: 'clear' };

function feedReducer(capacity: number) {
  return (feed: Feed, action: FeedAction): Feed => {
    switch (action.type) {
      case 'backlog':
        return { calls: action.calls.slice(-capacity), endedCount: feed.endedCount + 1 };
      case 'clear':
        return { calls: [], endedCount: feed.endedCount };
      case 'call': {
        const index = feed.calls.findIndex((call) => call.id === action.call.id);
        const ended = action.call.outcome !== 'running' && feed.calls[index]?.outcome !== action.call.outcome;
        const calls =
          index === -1
            ? [...feed.calls, action.call].slice(-capacity)
            : feed.calls.map((call, i) => (i === index ? action.call : call));
        return { calls, endedCount: feed.endedCount + (ended ? 1 : 0) };
      }
    }
  };
}

// The page keeps as many calls as the server does (info.feedCapacity); this many until the info has come.
const DEFAULT_CAPACITY = 500;

function useFeed(capacity: number): [Feed, FeedState, () => void] {
  const [feed, dispatch] = useReducer(feedReducer(capacity), { calls: [], endedCount: 0 });
  const [connection, setConnection] = useState<FeedState>('connecting');
  useEffect(
    () =>
      followFeed({
        state: setConnection,
        event(name, data) {
          if (name === 'backlog')
            dispatch({ type: 'backlog', calls: (JSON.parse(data) as { calls: Call[] }).calls });
          else if (name === 'call') dispatch({ type: 'call', call: JSON.parse(data) as Call });
        },
      }),
    [],
  );
  const clear = useCallback(() => dispatch({ type: 'clear' }), []);
  return [feed, connection, clear];
}

/** Asks for the bearer token a protected server wants; kept for this tab only, then the page starts again. */
function TokenForm() {
  const [token, setToken] = useState('');
  const refused = accessToken() !== undefined;
  const submit = (event: Event) => {
    event.preventDefault();
    setAccessToken(token.trim());
    location.reload();
  };
  return (
    <form class="token-form note" onSubmit={submit} aria-label="Access token">
      <p>
        {refused ? 'The server refused the token given. ' : ''}This server is protected: the console needs the
        same bearer token as <code>/mcp</code> (<code>SWITCHBOARD_HTTP_TOKEN</code>, or a signed-in user's
        access token). It is kept in this browser tab only.
      </p>
      <label for="access-token">Bearer token</label>{' '}
      <input
        id="access-token"
        type="password"
        autocomplete="off"
        value={token}
        onInput={(e) => setToken(e.currentTarget.value)}
      />{' '}
      <button type="submit" id="use-token" disabled={token.trim() === ''}>
        Use this token
      </button>
    </form>
  );
}

const CONNECTION_TEXT: Record<FeedState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Needs a token',
};

function App() {
  const [view, setView] = useState<ViewId>(viewFromHash);
  const [info, setInfo] = useState<Info | undefined>();
  const [infoError, setInfoError] = useState<string | undefined>();
  const [feed, connection, clearFeed] = useFeed(info?.feedCapacity ?? DEFAULT_CAPACITY);
  const [tokenAsked, setTokenAsked] = useState(false);

  useEffect(() => {
    onAuthorizationNeeded(() => setTokenAsked(true));
    api.info().then(setInfo, (error) => {
      if (!(error instanceof AuthorizationNeeded)) setInfoError(errorText(error));
    });
    const onHash = () => setView(viewFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const choose = (id: ViewId) => {
    setView(id);
    history.replaceState(null, '', `#${id}`);
  };

  return (
    <>
      <header class="top">
        <h1>Switchboard sandbox console</h1>
        <p class={`connection connection-${connection}`} aria-live="polite">
          {CONNECTION_TEXT[connection]}
        </p>
        <nav aria-label="Views">
          <ul class="views">
            {VIEWS.map((item) => (
              <li key={item.id}>
                <button
                  type="button"
                  id={`view-${item.id}`}
                  aria-current={view === item.id ? 'page' : undefined}
                  onClick={() => choose(item.id)}
                >
                  {item.label}
                </button>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      {tokenAsked || connection === 'unauthorized' ? <TokenForm /> : null}
      <ErrorNote error={infoError} />
      <main>
        <section id="timeline" aria-labelledby="view-timeline" hidden={view !== 'timeline'}>
          <TimelineView info={info} calls={feed.calls} onCleared={clearFeed} />
        </section>
        <section id="state" aria-labelledby="view-state" hidden={view !== 'state'}>
          <StateView active={view === 'state'} endedCount={feed.endedCount} />
        </section>
        <section id="controls" aria-labelledby="view-controls" hidden={view !== 'controls'}>
          <ControlsView info={info} active={view === 'controls'} endedCount={feed.endedCount} />
        </section>
        <section id="playground" aria-labelledby="view-playground" hidden={view !== 'playground'}>
          <PlaygroundView active={view === 'playground'} calls={feed.calls} />
        </section>
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
