"""A small conv net trained for a few jitted steps, meant to be captured with a growing pool
(--growing-pool): the BFC pool takes regions as the program needs them, at addresses the driver
chooses. Convolutions bring compile-time autotuning allocations. Used to capture
tests/data/jax_profiles/grow_convnet.*."""
import jax
import jax.numpy as jnp

N, C, HW = 32, 16, 32


def init(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return {"c1": jax.random.normal(k1, (3, 3, 3, C)) * 0.1, "c2": jax.random.normal(k2, (3, 3, C, C)) * 0.1,
            "fc": jax.random.normal(k3, (C * HW * HW // 4, 10)) * 0.01}


def conv(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def forward(p, x):
    x = jax.nn.relu(conv(x, p["c1"]))
    x = jax.nn.relu(conv(x, p["c2"]))
    x = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
    return x.reshape(N, -1) @ p["fc"]


@jax.jit
def step(p, x, y):
    loss = lambda p: jnp.mean((forward(p, x) - y) ** 2)
    g = jax.grad(loss)(p)
    return jax.tree_util.tree_map(lambda w, d: w - 1e-2 * d, p, g)


params = init(jax.random.PRNGKey(0))
x = jax.random.normal(jax.random.PRNGKey(1), (N, HW, HW, 3))
y = jax.random.normal(jax.random.PRNGKey(2), (N, 10))
for _ in range(10):
    params = step(params, x, y)
jax.block_until_ready(params)
