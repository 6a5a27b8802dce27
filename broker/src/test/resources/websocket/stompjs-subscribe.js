// Subscribes with @stomp/stompjs over a ws:// URL and prints what happens, one line each, for StompJsIT:
//   SUBSCRIBED              the broker receipted the SUBSCRIBE
//   MESSAGE <body>          a message arrived
//   DONE                    COUNT messages arrived and the connection stayed up over heart-beats for DWELL_MS
//   CLOSED <code>           the WebSocket closed: after DONE, exit 0; before it, exit 3
//   ERROR <message> / DISCONNECTED / TIMEOUT   (non-zero exit)
// Usage: node stompjs-subscribe.js NODE_MODULES_DIR BROKER_URL DESTINATION COUNT DWELL_MS
'use strict';
const path = require('path');
const [modules, brokerURL, destination, countArg, dwellArg] = process.argv.slice(2);
const { Client } = require(path.join(modules, '@stomp/stompjs'));
// Node 20 has no WebSocket of its own (22 has): stompjs uses the ws package's, with its subprotocols.
Object.assign(global, { WebSocket: require(path.join(modules, 'ws')) });

const count = Number(countArg);
const dwell = Number(dwellArg);
let received = 0;
let done = false;
let closing = false;
const finish = (line, code) => {
  if (done) return;
  done = true;
  console.log(line);
  process.exit(code);
};
setTimeout(() => finish('TIMEOUT after ' + received + ' messages', 4), 30000);

const client = new Client({
  brokerURL,
  reconnectDelay: 0,
  heartbeatIncoming: 200,
  heartbeatOutgoing: 200,
  onConnect: () => {
    client.watchForReceipt('sub-1', () => console.log('SUBSCRIBED'));
    client.subscribe(destination, (message) => {
      console.log('MESSAGE ' + message.body);
      received++;
      if (received === count) {
        // Quiet for several heart-beat periods: the broker must read our EOLs, and we its own.
        setTimeout(() => {
          if (!client.connected) {
            finish('DISCONNECTED', 5);
          }
          console.log('DONE');
          closing = true;
          client.deactivate().then(() => finish('CLOSED', 0));
        }, dwell);
      }
    }, { receipt: 'sub-1' });
  },
  onStompError: (frame) => finish('ERROR ' + frame.headers.message, 2),
  onWebSocketClose: (event) => finish('CLOSED ' + event.code, closing ? 0 : 3),
});
client.activate();
