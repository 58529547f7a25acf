"""Text Generation Inference's EXL2 group map for the exllamav2 kernel: the quantised
groups' table (pairs of bits and first quantised row) is read into Python with
`q_groups.tolist()`, and the map is built with Python loops whose bounds are those numbers.
Plain torch.compile does not break on it (Dynamo reads the small integer tensor's values and
specialises on them): GraphMend must leave it working."""

import torch

ORIGIN = "huggingface/text-generation-inference: server/text_generation_server/layers/gptq/exllamav2.py: make_group_map"
CATEGORY = "no_break"


def make_group_map(q_groups, num_qrows):
    gr = q_groups.tolist()
    group_map = []
    num_groups = len(gr) // 2

    for i in range(num_groups):
        bits = gr[i * 2]
        if i < num_groups - 1:
            qrows = gr[i * 2 + 3] - gr[i * 2 + 1]
        else:
            qrows = num_qrows - gr[i * 2 + 1]
        rows = qrows * 32 // bits
        for j in range(rows):
            group_map += [i]
            group_map += [rows - j]

    return torch.tensor(group_map, dtype=torch.short, device=q_groups.device)


ENTRY = make_group_map
INPUTS = [
    (torch.tensor([4, 0, 8, 1], dtype=torch.short), 3),
    (torch.tensor([8, 0], dtype=torch.short), 1),
]
