import middy from '@middy/core';

test('npm scripts run on the Node 24 toolchain, with ESM middy', async () => {
  expect(process.versions.node.split('.')[0]).toBe('24');
  const handler = middy(async () => ({ statusCode: 200, body: 'ok' }));
  await expect(handler({}, {} as never)).resolves.toEqual({ statusCode: 200, body: 'ok' });
});
