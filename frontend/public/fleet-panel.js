// Draws the fleet in the Readings panel: the count, the devices needing attention and the table of the listed
// devices that have no card.
import { badge, el } from './dom.js';

/** The "Needs attention" block: a heading and a list, or a note saying why there is none. */
export function renderAttention(attention) {
  return el(
    'div',
    { class: 'attention' },
    el('h3', null, 'Needs attention'),
    attention.items.length
      ? el(
          'ul',
          { class: 'attention-list' },
          ...attention.items.map((item) =>
            el(
              'li',
              { 'data-device': item.deviceId },
              el('span', { class: 'attention-device' }, item.deviceId),
              badge('span', { tone: 'warn', text: item.text }, 'badge attention-why'),
            ),
          ),
        )
      : null,
    attention.note ? el('p', { class: 'note', 'data-tone': attention.note.tone }, attention.note.text) : null,
  );
}

/** The listed devices without a card, one row each; the table scrolls on its own at phone width. */
export function renderFleetTable(rows) {
  const head = ['Device', 'State', 'Latest reading', 'Held on the device'].map((name) =>
    el('th', { scope: 'col' }, name),
  );
  return el(
    'div',
    { class: 'fleet-scroll' },
    el(
      'table',
      { class: 'fleet' },
      el('caption', null, 'Other listed devices'),
      el('thead', null, el('tr', null, ...head)),
      el(
        'tbody',
        null,
        ...rows.map((row) =>
          el(
            'tr',
            { 'data-device': row.deviceId },
            el('th', { scope: 'row' }, row.deviceId),
            el('td', null, badge('span', row.verdict)),
            el(
              'td',
              null,
              el('span', { class: 'reading-value' }, row.value),
              row.age ? el('time', { class: 'age', datetime: row.iso }, ` ${row.age}`) : null,
            ),
            el('td', null, row.backlog),
          ),
        ),
      ),
    ),
  );
}
