"""A small transformer block (attention + MLP) trained for a few jitted Adam-like steps, with the
host dispatching steps without waiting: allocations per step, donation of the parameters, and
the host running ahead of the device. Used to capture tests/data/jax_profiles/attention.*."""
import jax
import jax.numpy as jnp

B, T, D, H = 16, 128, 256, 4


def init(key):
    ks = jax.random.split(key, 4)
    s = D ** -0.5
    return {"qkv": jax.random.normal(ks[0], (D, 3 * D)) * s, "o": jax.random.normal(ks[1], (D, D)) * s,
            "w1": jax.random.normal(ks[2], (D, 4 * D)) * s, "w2": jax.random.normal(ks[3], (4 * D, D)) * s}


def block(p, x):
    q, k, v = jnp.split(x @ p["qkv"], 3, axis=-1)
    split = lambda t: t.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)
    q, k, v = split(q), split(k), split(v)
    att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / (D // H) ** 0.5, axis=-1)
    y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, D) @ p["o"]
    x = x + y
    return x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]


def loss(p, x):
    return jnp.mean(block(p, x) ** 2)


@jax.jit
def step(p, x):
    g = jax.grad(loss)(p, x)
    return jax.tree_util.tree_map(lambda w, d: w - 1e-3 * d, p, g)


step_donating = jax.jit(step.__wrapped__, donate_argnums=0)

params = init(jax.random.PRNGKey(0))
x = jax.random.normal(jax.random.PRNGKey(1), (B, T, D))
for i in range(24):
    params = (step_donating if i % 2 else step)(params, x)
jax.block_until_ready(params)
