// Development environments (HyperPod Spaces) over REST: create, list, get, stop/start and delete.

import type { components } from '../api/schema';
import { call } from './api';

type Schemas = components['schemas'];
export type SpaceView = Schemas['SpaceView'];
export type SpaceIde = NonNullable<Schemas['CreateSpaceRequest']['ide']>;

// One entry per IDE the API defines, so a new one fails the typecheck until it is titled here.
const IDE_TITLES: Record<SpaceIde, string> = { jupyterlab: 'JupyterLab', 'code-editor': 'Code Editor' };
export const IDES = (Object.entries(IDE_TITLES) as [SpaceIde, string][]).map(([value, label]) => ({ value, label }));
export const ideTitle = (ide: string) => IDE_TITLES[ide as SpaceIde] ?? ide;

const space = (cluster: string, spaceName: string) => ({ name: cluster, spaceName });

export const spacesApi = {
  list: (cluster: string) => call<{ cluster: string; items: SpaceView[] }>('list_spaces', { name: cluster }),
  create: (cluster: string, body: unknown) => call<SpaceView>('create_space', { name: cluster }, { body }),
  setStatus: (cluster: string, spaceName: string, desiredStatus: 'Running' | 'Stopped') =>
    call<SpaceView>('update_space', space(cluster, spaceName), { body: { desiredStatus } }),
  remove: (cluster: string, spaceName: string) =>
    call<{ deleted: boolean }>('delete_space', space(cluster, spaceName), { query: { confirm: spaceName } }),
};
