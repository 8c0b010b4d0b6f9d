"""Adversarial training (`senna.train.adversarial`): the step has the stated size and
direction, the second loss is the same network's loss on the moved inputs, and the setting is
refused where it does not apply (that training with it resumes exactly and changes the
weights: `test_train.test_regularisers_resume_exactly_and_change_training`)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import small_config  # noqa: E402

from senna.train.adversarial import perturbation, with_adversary  # noqa: E402


def test_step_is_the_gradient_scaled_to_eps_per_word():
    grad = torch.randn(3, 7, 5, dtype=torch.float64)
    lengths = np.array([3, 1, 5])
    step = perturbation(grad, lengths, 0.5)
    norms = step.flatten(1).norm(dim=1).numpy()
    np.testing.assert_allclose(norms, 0.5 * np.sqrt(lengths))
    cos = torch.nn.functional.cosine_similarity(step.flatten(1), grad.flatten(1), dim=1)
    np.testing.assert_allclose(cos.numpy(), 1.0)
    assert not step.requires_grad


class Tiny(torch.nn.Module):
    """emb -> linear -> squared error, so the adversarial loss can be computed by hand."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(10, 4)
        self.out = torch.nn.Linear(4, 1)

    def forward(self, ids):
        return self.out(self.emb(ids)).squeeze(-1)


def test_second_loss_is_taken_on_inputs_moved_along_the_gradient():
    net = Tiny()
    ids = torch.tensor([[1, 2, 3], [4, 5, 0]])
    target = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 0.0]])
    lengths = np.array([3, 2])

    def loss_of():
        return ((net(ids) - target) ** 2).sum()

    total = with_adversary(net, loss_of, lengths, 0.1)
    x = net.emb(ids).detach().requires_grad_(True)
    plain = ((net.out(x).squeeze(-1) - target) ** 2).sum()
    (g,) = torch.autograd.grad(plain, x)
    moved = x.detach() + perturbation(g, lengths, 0.1)
    by_hand = plain.detach() + ((net.out(moved).squeeze(-1) - target) ** 2).sum()
    torch.testing.assert_close(total.detach(), by_hand.detach())
    assert total.item() > 2 * plain.item()   # moving along the gradient raised the loss
    total.backward()                          # both passes backpropagate into the weights
    assert net.emb.weight.grad is not None and net.out.weight.grad is not None
    assert not net.emb._forward_hooks        # the hooks are gone afterwards


def test_adversarial_setting_is_checked(tmp_path):
    with pytest.raises(ValueError, match="--adversarial must be 0"):
        small_config(tmp_path, "ner-window-sll", adversarial=-1.0)
    with pytest.raises(ValueError, match="--adversarial needs the window approach"):
        small_config(tmp_path, "srl-sentence-sll", adversarial=0.5)
