// Training jobs over REST: submit, list, get, delete and logs, with their views.

import type { components } from '../api/schema';
import { call } from './api';

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
  torchtitan: { kind: 'pytorch', title: 'TorchTitan pre-training (TOML config)' },
  'hyperpod-llmft': { kind: 'pytorch', title: 'SageMaker HyperPod recipe: fine-tuning (LLMFT)' },
};
export const RECIPES: { name: Recipe; kind: JobKind; title: string }[] = (
  Object.entries(RECIPE_INFO) as [Recipe, { kind: JobKind; title: string }][]
).map(([name, info]) => ({ name, ...info }));

const job = (cluster: string, jobName: string) => ({ name: cluster, jobName });

export const jobsApi = {
  list: (cluster: string) => call<{ cluster: string; items: JobSummaryView[] }>('list_jobs', { name: cluster }),
  get: (cluster: string, jobName: string, namespace?: string) =>
    call<JobView>('get_job', job(cluster, jobName), { query: { namespace } }),
  submit: (cluster: string, body: unknown) => call<JobView>('submit_job', { name: cluster }, { body }),
  remove: (cluster: string, jobName: string, namespace?: string) =>
    call<{ deleted: boolean }>('delete_job', job(cluster, jobName), { query: { confirm: jobName, namespace } }),
  logs: (cluster: string, jobName: string, pod?: string, tail = 200) =>
    call<JobLogsView>('get_job_logs', job(cluster, jobName), { query: { pod, tail } }),
};
