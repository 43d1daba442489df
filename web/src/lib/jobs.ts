// Training jobs over REST (issue 14): submit, list, get, delete and logs, with their views.

import type { components } from '../api/schema';
import { request } from './api';

// Views and enums from the API's OpenAPI document (src/api/schema.d.ts).
type Schemas = components['schemas'];
export type JobKind = Schemas['JobView']['kind'];
export type Recipe = NonNullable<Schemas['SubmitJobRequest']['recipe']>;
export type RestartBudgetView = Schemas['RestartBudgetView'];
export type JobPodView = Schemas['JobPodView'];
export type JobEventView = Schemas['JobEventView'];
export type JobView = Schemas['JobView'];
export type JobSummaryView = Schemas['JobSummaryView'];
export type JobLogsView = Schemas['JobLogsView'];

// One entry per recipe the API defines, so a new recipe in the contract fails the typecheck until it is titled here.
const RECIPE_INFO: Record<Recipe, { kind: JobKind; title: string }> = {
  'pytorch-torchrun': { kind: 'pytorch', title: 'Plain PyTorch (torchrun script)' },
  'llama-factory': { kind: 'pytorch', title: 'LLaMA-Factory (YAML config + DeepSpeed)' },
  'ms-swift-sft': { kind: 'pytorch', title: 'MS-Swift SFT' },
  'ms-swift-grpo': { kind: 'pytorch', title: 'MS-Swift GRPO' },
  'verl-ppo': { kind: 'ray', title: 'VERL reinforcement learning (RayJob)' },
};
export const RECIPES: { name: Recipe; kind: JobKind; title: string }[] = (
  Object.entries(RECIPE_INFO) as [Recipe, { kind: JobKind; title: string }][]
).map(([name, info]) => ({ name, ...info }));

const base = (cluster: string) => `/clusters/${encodeURIComponent(cluster)}/jobs`;

export const jobsApi = {
  list: (cluster: string) => request<{ cluster: string; items: JobSummaryView[] }>('GET', base(cluster)),
  get: (cluster: string, job: string) => request<JobView>('GET', `${base(cluster)}/${encodeURIComponent(job)}`),
  submit: (cluster: string, body: unknown) => request<JobView>('POST', base(cluster), { body }),
  remove: (cluster: string, job: string) =>
    request<{ deleted: boolean }>('DELETE', `${base(cluster)}/${encodeURIComponent(job)}`, { query: { confirm: job } }),
  logs: (cluster: string, job: string, pod?: string, tail = 200) =>
    request<JobLogsView>('GET', `${base(cluster)}/${encodeURIComponent(job)}/logs`, { query: { pod, tail } }),
};
