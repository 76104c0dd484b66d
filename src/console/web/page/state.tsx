// State: each emulator's data as tables. "Mark this moment" asks the server for a marker; from then on the rows
// created or changed after it are highlighted (and say so in words, not colour alone). The open table refreshes
// when a call ends, so an agent's writes show up without a reload.

import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type StateSummary, type StateTable } from './api.js';
import { ErrorNote, formatTime, useViewRefresh } from './parts.js';

interface Selection {
  service: string;
  collection: string;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function StateView(props: { active: boolean; endedCount: number }) {
  const [summary, setSummary] = useState<StateSummary | undefined>();
  const [selection, setSelection] = useState<Selection | undefined>();
  const [table, setTable] = useState<StateTable | undefined>();
  const [marker, setMarker] = useState<{ token: string; at: string } | undefined>();
  const [onlyChanged, setOnlyChanged] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const refresh = useViewRefresh(props.active, props.endedCount);

  // Counts and the open table, on opening the view, after calls ended while it is open, and now and then.
  useEffect(() => {
    if (!props.active) return;
    let current = true;
    api.state().then(
      (next) => {
        if (!current) return;
        setSummary(next);
        setSelection((old) => {
          if (old) return old;
          const first = next.emulators.find((e) => e.collections.length > 0);
          const collection = first?.collections[0];
          return first && collection ? { service: first.service, collection: collection.name } : undefined;
        });
      },
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [props.active, refresh]);

  useEffect(() => {
    if (!props.active || !selection) return;
    let current = true;
    api.stateTable(selection.service, selection.collection, marker?.token).then(
      (next) => {
        if (!current) return;
        setTable(next);
        setError(undefined);
      },
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [props.active, refresh, selection, marker]);

  const mark = async () => {
    try {
      const { marker: token } = await api.mark();
      setMarker({ token, at: new Date().toISOString() });
    } catch (e) {
      setError(errorText(e));
    }
  };

  const changed = table?.rows.filter((row) => row.changed).length ?? 0;
  const rows = (table?.rows ?? []).filter((row) => !onlyChanged || row.changed);
  const total = table?.total ?? table?.rows.length ?? 0;

  return (
    <>
      <h2>State</h2>
      <div class="toolbar">
        <button type="button" id="state-mark" onClick={mark}>
          Mark this moment
        </button>
        {marker ? (
          <>
            <span id="state-marker">Highlighting rows created or changed since {formatTime(marker.at)}.</span>
            <label>
              <input
                type="checkbox"
                id="state-only-changed"
                checked={onlyChanged}
                onChange={(e) => setOnlyChanged(e.currentTarget.checked)}
              />{' '}
              Only changed rows
            </label>
            <button type="button" onClick={() => setMarker(undefined)}>
              Stop highlighting
            </button>
          </>
        ) : (
          <span class="muted">Mark a moment to highlight what changes after it.</span>
        )}
      </div>
      <ErrorNote error={error} />
      <div class="state-layout">
        <nav class="collections" aria-label="Emulator data">
          {summary?.emulators.map((emulator) => (
            <div key={emulator.service}>
              <h3>{emulator.service}</h3>
              <ul>
                {emulator.collections.map((collection) => {
                  const chosen =
                    selection?.service === emulator.service && selection.collection === collection.name;
                  return (
                    <li key={collection.name}>
                      <button
                        type="button"
                        class="collection"
                        data-service={emulator.service}
                        data-collection={collection.name}
                        aria-current={chosen ? 'true' : undefined}
                        onClick={() =>
                          setSelection({ service: emulator.service, collection: collection.name })
                        }
                      >
                        {collection.name} <span class="count">({collection.count})</span>
                      </button>
                    </li>
                  );
                })}
              </ul>
            </div>
          ))}
        </nav>
        <div class="state-table">
          {selection && table ? (
            <div class="table-wrap">
              <table id="state-rows" data-service={selection.service} data-collection={selection.collection}>
                <caption>
                  {selection.service}: {selection.collection}, {total} rows
                  {total > table.rows.length ? ` (the first ${table.rows.length} shown)` : ''}
                  {marker && table.markerCovers !== false ? `, ${changed} changed since the mark` : ''}
                  {marker && table.markerCovers === false ? ', not covered by the mark (take a new one)' : ''}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Change</th>
                    {table.columns.map((column) => (
                      <th key={column} scope="col">
                        {column}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={row.id} data-id={row.id} class={row.changed ? 'changed' : undefined}>
                      <td>{row.changed ? <span class="badge changed-badge">changed</span> : null}</td>
                      {table.columns.map((column) => (
                        <td key={column}>{cellText(row.values[column])}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p class="muted">Pick a collection.</p>
          )}
        </div>
      </div>
    </>
  );
}
