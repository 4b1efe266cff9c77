// s3rver in a process of its own (forked by s3-server.ts): the argument is its directory; it
// reports its port over IPC and exits when its parent goes.
import S3rver from 's3rver';

const server = new S3rver({ address: '127.0.0.1', port: 0, directory: process.argv[2], silent: true });
const { port } = await server.run();
process.send({ port });
process.on('disconnect', () => process.exit(0));
