// The webhooks pages' own links: endpoints, the event catalogue, deliveries.
import { NavLink } from 'react-router';

export function WebhooksNav() {
  return (
    <nav aria-label="Webhooks" className="webhook-nav">
      <NavLink to="/webhooks" end>
        Endpoints
      </NavLink>
      <NavLink to="/webhooks/events">Event catalogue</NavLink>
      <NavLink to="/webhooks/deliveries">Deliveries</NavLink>
    </nav>
  );
}
