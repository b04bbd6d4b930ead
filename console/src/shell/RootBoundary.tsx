// The last guard against a white screen: a failure outside any page (the router's own) still shows a
// sentence and a way back.
import { Component, type ReactNode } from 'react';
import { Failure } from '../components/Failure.tsx';

export class RootBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <main id="main" className="error-page">
        <h1>The console failed</h1>
        <Failure error={this.state.error} />
        <p>
          <a href="/console/">Reload the console</a>
        </p>
      </main>
    );
  }
}
