/**
 * The throughput baseline (its own process): a bare Fastify app — no plugins, hooks or
 * schemas — answering GET <path> (any query) with the bytes of a real answer of the
 * service, read once from a file. What the service would cost if producing the body were
 * free. Usage: bare-json.ts <port> <path> <body file>
 */
import fs from 'node:fs';
import Fastify from 'fastify';

const [port, routePath, bodyFile] = process.argv.slice(2);
if (port === undefined || routePath === undefined || bodyFile === undefined)
  throw new Error('usage: bare-json.ts <port> <path> <body file>');
const body = fs.readFileSync(bodyFile);

const app = Fastify({ logger: false });
app.get(routePath, (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(body);
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
