"""The REINFORCE example's select_action: a categorical sample from the policy, its
log-probability saved on the policy, and the action returned as a Python int with
`action.item()`. Not fixable by design (the result is a Python value from tensor data)."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical

ORIGIN = "pytorch/examples: reinforcement_learning/reinforce.py: select_action"
CATEGORY = "out_of_scope"


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 8)
        self.affine2 = nn.Linear(8, 2)
        self.saved_log_probs = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.policy = Policy()

    def forward(self, state):
        state = state.float().unsqueeze(0)
        probs = self.policy(state)
        m = Categorical(probs)
        action = probs.argmax(1)  # the example samples (m.sample()); argmax keeps runs comparable
        self.policy.saved_log_probs.append(m.log_prob(action))
        return action.item()


ENTRY = Agent
torch.manual_seed(0)
INPUTS = [(torch.randn(4),), (torch.randn(4),)]
