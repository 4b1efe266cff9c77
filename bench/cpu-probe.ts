// Imported by a bench server: answers the IPC message `cpu` with the CPU time this process
// has used (user + system, microseconds), so a suite can compute CPU time per request.
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  }
});
