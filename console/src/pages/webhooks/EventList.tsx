// An endpoint's event types, one a line.
export function EventList({ events }: { events: readonly string[] }) {
  return (
    <ul className="webhook-event-list">
      {events.map((type) => (
        <li key={type}>
          <code>{type}</code>
        </li>
      ))}
    </ul>
  );
}
