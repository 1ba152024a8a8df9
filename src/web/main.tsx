/** The web UI: one page, views chosen by the URL fragment, data from the service's public endpoints. */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { parseRoute, type Route } from './route';
import { ActivityView } from './views/activity';
import { AnsView } from './views/ans';
import { GovernanceView } from './views/governance';
import { IndexerView } from './views/indexer';
import { NetworkView } from './views/network';
import { PartyView } from './views/party';
import { ValidatorsView } from './views/validators';
import './styles.css';

const VIEWS = [
  { view: 'network', label: 'Network' },
  { view: 'activity', label: 'Activity' },
  { view: 'party', label: 'Party' },
  { view: 'validators', label: 'Validators' },
  { view: 'ans', label: 'ANS directory' },
  { view: 'governance', label: 'Governance' },
  { view: 'indexer', label: 'Indexer' },
] as const;

/** The view the address names, following it as it changes. */
function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function App() {
  const route = useRoute();
  const known = VIEWS.find((v) => v.view === route.view);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    document.title = `${known?.label ?? 'Not found'} · scan-indexer`;
  }, [known]);
  return (
    <>
      <a class="skip-link" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header class="site-header">
        <span class="brand">scan-indexer</span>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.view}>
                <a href={`#/${v.view}`} aria-current={v.view === route.view ? 'page' : undefined}>
                  {v.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <View view={route.view} arg={route.arg} />
      </main>
      <footer class="site-footer">
        Served by this indexer from its public endpoints: <a href="/docs/openapi.json">OpenAPI document</a>, <a href="/status">status</a>.
      </footer>
    </>
  );
}

function View({ view, arg }: { view: string; arg: string | undefined }) {
  switch (view) {
    case 'network':
      return <NetworkView />;
    case 'activity':
      return <ActivityView lookup={arg} />;
    case 'party':
      return <PartyView party={arg} />;
    case 'validators':
      return <ValidatorsView />;
    case 'ans':
      return <AnsView prefix={arg} />;
    case 'governance':
      return <GovernanceView />;
    case 'indexer':
      return <IndexerView />;
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            There is no view “{view}”. <a href="#/network">Go to the network view.</a>
          </p>
        </>
      );
  }
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
