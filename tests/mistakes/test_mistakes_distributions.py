"""Mistakes with probability distributions (nb.distributions): a log standard deviation
given as the scale, scores given as probabilities, a value the distribution never gives,
a KL divergence with no closed form; a concentration of 0 from a ReLU, counts that are
not whole numbers or exceed the trials, a coin that never succeeds.

Each entry: the state a student has (setup), the line that goes wrong (act), the nnbook
error, where it says it happened, what it says was expected and came, and where its hint
points.  ``catalogue.check`` also requires the user's line and an unchanged state.
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook.errors import ArgumentError, InputError, MissingRuleError, ShapeError

D = nb.distributions


def encoder_output():
    """A VAE encoder's mean and log-variance for a batch of 4 codes of size 2."""
    return nb.tensor([[0.1, -0.3], [0.5, 0.0], [-1.2, 0.4], [0.3, 0.9]]), \
        nb.tensor([[-0.5, -1.0], [0.2, -2.0], [-0.1, 0.3], [-0.7, -0.2]])


MISTAKES = [
    mistake("the log-variance given as the scale", encoder_output,
            lambda out: D.Normal(out[0], out[1]),
            InputError, "distributions.Normal", r"parameter scale must be > 0; got \[-0\.5",
            r"log_std\.exp\(\)"),
    mistake("a policy's scores given as probabilities", lambda: nb.tensor([[1.5, -0.2, 0.3]]),
            lambda scores: D.Categorical(probs=scores),
            InputError, "distributions.Categorical", r"probs must be >= 0", r"logits="),
    mistake("both probs and logits", lambda: nb.tensor([0.2, 0.8]),
            lambda p: D.Bernoulli(probs=p, logits=p.logit()),
            InputError, "distributions.Bernoulli", r"exactly one; got both", r"logits= for scores"),
    mistake("log_prob of a label as a probability", lambda: D.Bernoulli(nb.tensor([0.3, 0.6])),
            lambda d: d.log_prob(nb.tensor([0.7, 1.0])),
            InputError, "distributions.Bernoulli.log_prob", r"support, 0 or 1; got \[0\.7\]",
            r"-inf; validate_args=False"),
    mistake("log_prob of a class number past the last class",
            lambda: D.Categorical(logits=nb.zeros(2, 4)),
            lambda d: d.log_prob(nb.tensor([1, 4])),
            InputError, "distributions.Categorical.log_prob", r"from 0 to 3; got \[4\]",
            r"-inf"),
    mistake("log_prob of actions for another batch size",
            lambda: D.Normal(nb.zeros(8, 2), 1.0),
            lambda d: d.log_prob(nb.zeros(5, 2)),
            ShapeError, "distributions.Normal.log_prob", r"shape \(5, 2\) does not broadcast "
            r"with the batch shape \(8, 2\)", r"rightmost dims must match"),
    mistake("a covariance that is not positive-definite", lambda: nb.tensor([[1.0, 2.0],
                                                                           [2.0, 1.0]]),
            lambda cov: D.MultivariateNormal(nb.zeros(2), covariance_matrix=cov),
            InputError, "distributions.MultivariateNormal",
            r"covariance_matrix must be symmetric positive-definite", r"1e-3 \* nb\.eye\(d\)"),
    mistake("rsample of a policy's discrete actions",
            lambda: D.Categorical(logits=nb.zeros(4, 3, requires_grad=True)),
            lambda policy: policy.rsample(),
            MissingRuleError, "distributions.Categorical.rsample", r"has no rsample",
            r"sample\(\) and use log_prob\(draws\)"),
    mistake("a KL divergence with no closed form", None,
            lambda: D.kl_divergence(D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0)),
            MissingRuleError, "distributions.kl_divergence", r"from Normal to Laplace",
            r"p\.log_prob\(x\) - q\.log_prob\(x\)"),
    mistake("a ReLU output as a Beta concentration", lambda: nb.tensor([[0.3, -0.2], [1.2, 0.5]]),
            lambda raw: D.Beta(raw.relu(), raw.exp()),
            InputError, "distributions.Beta", r"concentration1 must be > 0; got \[0\]",
            r"F\.softplus\(raw\) \+ 1e-3"),
    mistake("a Dirichlet concentration as a list", None,
            lambda: D.Dirichlet([1.0, 1.0, 1.0]),
            ArgumentError, "distributions.Dirichlet", r"must be a tensor, got list",
            r"Dirichlet\(nb\.tensor\("),
    mistake("log_prob of a count that is not a whole number",
            lambda: D.Poisson(nb.tensor([2.0, 3.5])),
            lambda d: d.log_prob(nb.tensor([1.5, 2.0])),
            InputError, "distributions.Poisson.log_prob",
            r"a whole number >= 0; got \[1\.5\]", r"-inf"),
    mistake("log_prob of more successes than trials",
            lambda: D.Binomial(10, probs=nb.tensor([0.3, 0.6])),
            lambda d: d.log_prob(nb.tensor([3.0, 11.0])),
            InputError, "distributions.Binomial.log_prob",
            r"a whole number from 0 to 10; got \[11\]", r"-inf"),
    mistake("the mean number of trials as total_count",
            lambda: (nb.tensor([3.0, 4.0, 6.0]), nb.tensor(0.4)),
            lambda trials_and_p: D.Binomial(trials_and_p[0].mean(), probs=trials_and_p[1]),
            InputError, "distributions.Binomial", r"total_count must be a whole number >= 0; "
            r"got 4\.33333", r"Binomial\(10, probs=p\)"),
    mistake("a geometric coin that never succeeds", lambda: nb.tensor([0.0, 0.25]),
            lambda p: D.Geometric(probs=p),
            InputError, "distributions.Geometric", r"probs must be > 0; got \[0\]",
            r"clamp\(min=1e-6\)"),
    mistake("the entropy of a Poisson", lambda: D.Poisson(nb.tensor([2.0, 4.0])),
            lambda d: d.entropy(),
            MissingRuleError, "distributions.Poisson.entropy", r"no closed form",
            r"-d\.log_prob\(d\.sample"),
    mistake("a KL divergence to a Binomial of more trials", None,
            lambda: D.kl_divergence(D.Binomial(3, nb.tensor(0.2)), D.Binomial(5, nb.tensor(0.2))),
            MissingRuleError, "distributions.kl_divergence", r"fewer trials",
            r"same total_count"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
