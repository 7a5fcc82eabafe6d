/** Why `npm start` failed, as one sentence saying what to do (the details follow at LOG_LEVEL=debug). */
export function explainStartError(err: unknown, env: NodeJS.ProcessEnv): string {
  const e = (err ?? {}) as { code?: string; message?: string; port?: number; address?: string };
  const message = e.message ?? String(err);
  if (e.code === 'EADDRINUSE') {
    return `Port ${e.port ?? env.PORT ?? 3000} is already in use, so the API cannot listen on it: stop what uses it, or set PORT to a free port.`;
  }
  if (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND') {
    const missing = /Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1] ?? 'a module';
    return `The build or install is incomplete (${missing} is missing): run npm install, then npm start (it builds first).`;
  }
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === '28P01' || e.code === '3D000') {
    const target = env.AMQP_URL && /amqp/i.test(message) ? 'RabbitMQ at AMQP_URL' : 'PostgreSQL at DATABASE_URL';
    return `Cannot reach ${target} (${message}): start it, or correct the URL.`;
  }
  if (/RabbitMQ unreachable/.test(message)) return `${message}: start RabbitMQ, or unset AMQP_URL to run everything in one process.`;
  return `npm start failed: ${message}`;
}
