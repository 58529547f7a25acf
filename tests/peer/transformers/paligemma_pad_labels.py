"""PaliGemma's forward (transformers 4.44-4.45): for backward compatibility, labels that
contain the pad token are re-masked behind a membership test on the tensor, with a
once-only warning (`if labels is not None and self.pad_token_id in labels:
logger.warning_once(...); labels = torch.where(input_ids == self.pad_token_id, ...)`). The
vision tower, cache and causal-mask plumbing are left out (no `pixel_values`); the language
model is one linear layer. With an attention mask, the loss selects the attended positions
by boolean indexing (a data-dependent shape, not in INPUTS[0])."""

import functools
import logging
from typing import Optional, Tuple, Union

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/paligemma/modeling_paligemma.py: PaliGemmaForConditionalGeneration.forward"
CATEGORY = "mixed"

logger = logging.getLogger(__name__)


@functools.lru_cache(None)
def warning_once(self, *args, **kwargs):
    """transformers.utils.logging: emit a warning with the same message only once."""
    self.warning(*args, **kwargs)


logging.Logger.warning_once = warning_once


def reset():
    logging.Logger.warning_once.cache_clear()  # the copy installed last, whichever module ran


class TextConfig:
    vocab_size = 8


class PaliGemmaConfig:
    pad_token_id = 0
    ignore_index = -100
    use_return_dict = False
    text_config = TextConfig()


class PaliGemmaForConditionalGeneration(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = PaliGemmaConfig()
        self.embed_tokens = nn.Embedding(8, 4)
        self.language_model = nn.Linear(4, 8)
        self.pad_token_id = self.config.pad_token_id if self.config.pad_token_id is not None else -1

    def get_input_embeddings(self):
        return self.embed_tokens

    def forward(
        self,
        input_ids: torch.LongTensor = None,
        attention_mask: Optional[torch.Tensor] = None,
        labels: Optional[torch.LongTensor] = None,
        inputs_embeds: Optional[torch.FloatTensor] = None,
        return_dict: Optional[bool] = None,
    ) -> Union[Tuple, dict]:
        if (input_ids is None) ^ (inputs_embeds is not None):
            raise ValueError("You must specify exactly one of input_ids or inputs_embeds")

        return_dict = return_dict if return_dict is not None else self.config.use_return_dict

        if inputs_embeds is None:
            inputs_embeds = self.get_input_embeddings()(input_ids)

        # mask out pad-token-ids in labels for BC
        if labels is not None and self.pad_token_id in labels:
            logger.warning_once(
                "`labels` contains `pad_token_id` which will be masked with `config.ignore_index`. "
                "You have to mask out `pad_token_id` when preparing `labels`, this behavior will be removed in v.4.46.",
            )
            labels = torch.where(input_ids == self.pad_token_id, self.config.ignore_index, labels)

        logits = self.language_model(inputs_embeds)
        loss = None
        if labels is not None:
            # Upcast to float if we need to compute the loss to avoid potential precision issues
            logits = logits.float()
            shift_logits = logits[..., :-1, :]
            shift_labels = labels[..., 1:]
            if attention_mask is not None:
                # we use the input attention mask to shift the logits and labels, because it is 2D.
                # we also crop attn mask in case it is longer, which happens in PrefixTuning with peft
                shift_attention_mask = attention_mask[:, -shift_logits.shape[1] :].to(logits.device)
                shift_logits = shift_logits[shift_attention_mask.to(logits.device) != 0].contiguous()
                shift_labels = shift_labels[shift_attention_mask.to(shift_labels.device) != 0].contiguous()
            else:
                shift_logits = shift_logits.contiguous()
                shift_labels = shift_labels.contiguous()
            # Flatten the tokens
            loss_fct = nn.CrossEntropyLoss()

            flat_logits = shift_logits.view(-1, self.config.text_config.vocab_size)
            flat_labels = shift_labels.view(-1).to(shift_logits.device)
            loss = loss_fct(flat_logits, flat_labels)
        if not return_dict:
            output = (logits,)
            return (loss,) + output if loss is not None else output
        return {"loss": loss, "logits": logits}


ENTRY = PaliGemmaForConditionalGeneration
_IDS = torch.tensor([[3, 5, 2, 7, 0, 0], [4, 1, 6, 2, 5, 3]])
INPUTS = [
    (_IDS, None, _IDS.clone()),
    (_IDS, None, torch.tensor([[3, 5, 2, 7, -100, -100], [4, 1, 6, 2, 5, 3]])),
    (_IDS,),
    (_IDS, torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]]), _IDS.clone()),
]
