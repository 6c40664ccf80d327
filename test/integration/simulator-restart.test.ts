import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { useGateway } from './support/gateway-fixture.js';

/**
 * A restart of `npm start` over the same data folder keeps the upstream simulators as a real
 * upstream outlives a gateway restart: the same URLs in runtime.json, and the jobs created
 * before it (a MiniMax video task, a FASHN prediction) walk on where they were, their links
 * still served. The jobs are created directly against the simulators, as a job the gateway
 * submitted before the restart and still polls after it.
 */
const KEY = { authorization: 'Bearer sim-local-key', 'content-type': 'application/json' };
const local = useGateway();

async function json(url: string, body?: unknown): Promise<any> {
  const response = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: KEY,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

const minimax = () => local.gateway.info.simulators['minimax']!;
const fashn = () => local.gateway.info.simulators['fashn']!;
const videoStatus = async (taskId: string) =>
  (await json(`${minimax()}/v1/query/video_generation?task_id=${taskId}`)).status as string;
const predictionStatus = async (id: string) => (await json(`${fashn()}/v1/status/${id}`)).status as string;

test('the simulators keep their URLs, and jobs created before a restart walk on after it', async () => {
  const { task_id: taskId } = await json(`${minimax()}/v1/video_generation`, {
    model: 'MiniMax-Hailuo-2.3',
    prompt: 'a lighthouse at dusk',
  });
  expect(taskId).toMatch(/^\d{15}$/);
  expect([await videoStatus(taskId), await videoStatus(taskId)]).toEqual(['Preparing', 'Queueing']);

  const finished = await json(`${minimax()}/v1/video_generation`, {
    model: 'MiniMax-Hailuo-2.3',
    prompt: 'a harbour [sim:polls=1]',
  });
  const { file_id: fileId } = await json(`${minimax()}/v1/query/video_generation?task_id=${finished.task_id}`);
  const { file } = await json(`${minimax()}/v1/files/retrieve?file_id=${fileId}`);

  const { id: predictionId } = await json(`${fashn()}/v1/run`, {
    model_name: 'model-create',
    inputs: { prompt: 'a model in a coat' },
  });
  expect(await predictionStatus(predictionId)).toBe('starting');

  const before = local.gateway.info.simulators;
  await local.gateway.restart();

  expect(local.gateway.info.simulators).toEqual(before);
  expect(existsSync(join(local.gateway.dataDir, 'simulators', 'minimax.json'))).toBe(true);
  expect(await videoStatus(taskId)).toBe('Processing');
  expect(await videoStatus(taskId)).toBe('Success');
  const download = await fetch(file.download_url);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe('video/mp4');
  expect(await predictionStatus(predictionId)).toBe('in_queue');
}, 90_000);
