"""torchtune's RL parameter server for vLLM workers: before the trainer's weights are sent to
a generation worker, `_skip_update` decides whether the worker already holds this version
(version 0 is never sent, an unknown worker always is, one at the current version is logged
with `log.info(f"Skipping update for {worker_id=}, ...")` and skipped). The Ray actor, the
locks and the NCCL group are left out: the update copies the state dict into the worker's
weights in memory, for a sequence of trainer versions and worker requests.
Plain torch.compile (torch 2.13) breaks on the logger call ("logging.Logger methods are not
supported"), inside a loop, so it gives up on the whole frame."""

import logging

import torch

ORIGIN = "pytorch/torchtune: torchtune/dev/rl/workers/parameter_servers/vllm.py: VLLMParameterServer._skip_update"
CATEGORY = "defer"

log = logging.getLogger("torchtune.dev.rl.parameter_server")


class VLLMParameterServer:
    def __init__(self):
        self.state_dict = {}
        self.version = 0
        self.vllm_weight_versions = {}
        self.worker_weights = {}

    def receive_from_trainer(self, state_dict):
        self.state_dict = {k: v.clone() for k, v in state_dict.items()}
        self.version += 1

    def _skip_update(self, worker_id):
        if self.version == 0:
            return True
        if worker_id not in self.vllm_weight_versions:
            return False
        if self.vllm_weight_versions[worker_id] == self.version:
            log.info(
                f"Skipping update for {worker_id=}, {self.version=}, {self.vllm_weight_versions[worker_id]=}"
            )
            return True
        return False

    def update_weights(self, worker_id):
        if self._skip_update(worker_id):
            return False
        weights = self.worker_weights.setdefault(worker_id, {})
        for k, v in self.state_dict.items():
            weights[k] = v * 1.0
        self.vllm_weight_versions[worker_id] = self.version
        return True


def push(weights, events):
    server = VLLMParameterServer()
    sent = []
    for weight, worker_id in zip(weights, events):
        if weight is not None:
            server.receive_from_trainer({"w": weight, "b": weight.sum(0)})
        sent.append(server.update_weights(worker_id))
    return sent, server.worker_weights


torch.manual_seed(0)
_W = [torch.randn(3, 2), torch.randn(3, 2)]
ENTRY = push
INPUTS = [
    # a new version for worker 1, then the same version again: logged and skipped
    ([_W[0], None], [1, 1]),
    # nothing received yet: version 0 is never sent
    ([None, _W[0]], [1, 1]),
    # another worker, then a newer version for the first
    ([_W[0], None, _W[1]], [1, 2, 1]),
]
