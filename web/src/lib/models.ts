// Downloaded models: GET /api/clusters/{name}/models lists the model folders found under
// models/ of every S3 storage Launchpod configured (ModelListView in contracts/models.py).

import type { components } from '../api/schema';
import { call } from './api';
import type { NoopView, OperationAcceptedView } from './types';

export type ModelView = components['schemas']['ModelView'];
export type ModelListView = components['schemas']['ModelListView'];

export const modelsApi = {
  list: (cluster: string) => call<ModelListView>('list_models', { name: cluster }),
  download: (cluster: string, body: { repoId: string; storageName: string; revision?: string; hfToken?: string }) =>
    call<OperationAcceptedView | NoopView>('download_model', { name: cluster }, { body }),
};

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
