"""Compiled kernels of the online Gamma-Poisson factorisation (paper Algorithm 1).

Notation: ``F`` holds n-gram counts of distinct values in CSR form (``indptr``,
``cols``, ``data``), ``X`` their activations (n_values x d) and ``Lambda`` the
topics (d x vocabulary). ``Lambda`` is stored transposed and lazily scaled:
``Lambda[i, j] = A_hat[j, i] / R[i]`` with ``R[i] = sum_j A_hat[j, i]``, so every
topic sums to one (as in the reference implementation) and the discount ``rho``
of the online statistics never touches the columns a mini-batch does not contain:

* Algorithm 1 accumulates ``A <- rho A + A~`` and ``B <- rho B + B~`` and sets
  ``Lambda = A / B``, then rescales each topic to sum to one. ``B~ = x^T 1`` is
  the same for every n-gram, so ``B`` is a length-d vector.
* Writing ``A = s * A_hat`` with a per-topic scale ``s`` folds ``rho`` into ``s``;
  with the rescaling ``s = B / R``, the update of a touched column ``j`` becomes
  ``A_hat[j, i] *= 1 + S[j, i] / (rho B[i])`` where
  ``S[j, i] = sum_l w_l x_li f_lj / (x_l Lambda)_j``, and ``R`` grows by the same
  increments. A mini-batch costs O(nnz x d), not O(vocabulary x d).
* ``A_hat`` grows by about ``1 / rho`` per mini-batch; :func:`fit_batches`
  divides it by ``R`` (O(vocabulary x d)) when ``R`` passes 1e100, which happens
  once in a few thousand mini-batches.

Everything is float64: the ratios ``f / (x Lambda)`` span many orders of magnitude.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["e_step", "fit_batches", "row_sums"]

# Floor of (x Lambda)_j: keeps ratios finite for n-grams no topic explains yet.
_TINY = 1e-300
_RESCALE_ABOVE = 1e100


@njit(cache=True, nogil=True)
def row_sums(indptr, data):  # pragma: no cover - compiled
    """Sum of each CSR row, in float64."""
    out = np.zeros(indptr.shape[0] - 1)
    for row in range(out.shape[0]):
        total = 0.0
        for p in range(indptr[row], indptr[row + 1]):
            total += data[p]
        out[row] = total
    return out


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "arcp"})
def _e_step_row(
    indptr, cols, data, row, A_hat, inv_R, x, lam, ratio, prior, denom, tol, max_iter
):  # pragma: no cover - compiled
    """Multiplicative updates of one activation vector ``x`` (in place).

    The row's topic columns are first gathered into ``lam[:, :nnz]`` (d x
    n-grams, n-grams contiguous), so that ``x Lambda`` and ``ratio`` are computed
    for all n-grams at once, in vectorised loops without a horizontal sum per
    n-gram. On return ``ratio[:nnz]`` holds ``f / (x Lambda)`` for the final ``x``.
    """
    d = x.shape[0]
    start = indptr[row]
    nnz = indptr[row + 1] - start
    for p in range(nnz):
        j = cols[start + p]
        for i in range(d):
            lam[i, p] = A_hat[j, i] * inv_R[i]
    for iteration in range(max_iter + 1):
        for p in range(nnz):
            ratio[p] = 0.0
        for i in range(d):
            xi = x[i]
            for p in range(nnz):
                ratio[p] += xi * lam[i, p]
        for p in range(nnz):
            ratio[p] = data[start + p] / max(ratio[p], _TINY)
        if iteration == max_iter:
            break
        change = 0.0
        norm = 0.0
        for i in range(d):
            total = 0.0
            for p in range(nnz):
                total += lam[i, p] * ratio[p]
            new = (x[i] * total + prior) / denom
            change += (new - x[i]) ** 2
            norm += x[i] * x[i]
            x[i] = new
        if change <= tol * tol * norm:
            max_iter = iteration + 1  # one more round of ratios for the final x


@njit(cache=True, nogil=True)
def e_step(
    indptr, cols, data, rows, A_hat, R, X, prior, denom, tol, max_iter
):  # pragma: no cover - compiled
    """Update the activations ``X[rows]`` to convergence with topics fixed.

    ``x <- (x * ((f / (x Lambda)) Lambda^T) + alpha - 1) / (1 Lambda^T + 1 / beta)``
    with ``1 Lambda^T = 1`` (topics sum to one), ``prior = alpha - 1`` and
    ``denom = 1 + 1 / beta``; stops when ``||x - x_old|| <= tol ||x_old||``.
    Rows without n-grams are left unchanged.
    """
    d = X.shape[1]
    inv_R = 1.0 / R
    longest = 0
    for row in rows:
        longest = max(longest, indptr[row + 1] - indptr[row])
    lam = np.empty((d, longest))
    ratio = np.empty(longest)
    for row in rows:
        if indptr[row + 1] > indptr[row]:
            _e_step_row(
                indptr, cols, data, row, A_hat, inv_R, X[row], lam, ratio,
                prior, denom, tol, max_iter,
            )  # fmt: skip


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "arcp"})
def fit_batches(
    indptr, cols, data, order, batch_size, weights, A_hat, R, B, X,
    prior, denom, rho, tol, max_iter, slot, fresh,
):  # fmt: skip  # pragma: no cover - compiled
    """Run Algorithm 1 over the distinct values ``order``, ``batch_size`` at a time.

    For each mini-batch: E-step of its activations (warm-started from ``X``), then
    the lazy M-step described in the module docstring, with the contribution of
    distinct value ``l`` weighted by its count ``weights[l]``. ``slot`` is an
    all ``-1`` workspace of length ``A_hat.shape[0]`` (left all ``-1``).
    ``fresh`` is multiplied into ``A_hat``'s rescalings so that the caller can give
    n-grams first seen later the value they would have had from the start.

    Returns the number of mini-batches run.
    """
    d = X.shape[1]
    n = order.shape[0]
    aux = np.empty(d)
    max_nnz = 0
    for start in range(0, n, batch_size):
        total = 0
        for row in order[start : start + batch_size]:
            total += indptr[row + 1] - indptr[row]
        max_nnz = max(max_nnz, total)
    S = np.empty((max_nnz, d))
    touched = np.empty(max_nnz, dtype=np.int64)
    longest = 0
    for row in order:
        longest = max(longest, indptr[row + 1] - indptr[row])
    lam = np.empty((d, longest))
    ratio = np.empty(longest)
    n_batches = 0
    for start in range(0, n, batch_size):
        batch = order[start : start + batch_size]
        inv_R = 1.0 / R
        n_touched = 0
        mass = np.zeros(d)
        for row in batch:
            first = indptr[row]
            nnz = indptr[row + 1] - first
            if nnz == 0:
                continue
            x = X[row]
            _e_step_row(
                indptr, cols, data, row, A_hat, inv_R, x, lam, ratio,
                prior, denom, tol, max_iter,
            )  # fmt: skip
            # M-step statistics S[j, i] = sum_l w_l x_li f_lj / (x_l Lambda)_j, with
            # the ratios of the converged x_l left in `ratio`
            w = weights[row]
            for i in range(d):
                mass[i] += w * x[i]
            for p in range(nnz):
                r = w * ratio[p]
                j = cols[first + p]
                s = slot[j]
                if s < 0:
                    s = n_touched
                    slot[j] = s
                    touched[s] = j
                    n_touched += 1
                    for i in range(d):
                        S[s, i] = 0.0
                for i in range(d):
                    S[s, i] += x[i] * r
        if n_touched == 0:
            continue
        for i in range(d):
            aux[i] = 1.0 / (rho * B[i])
        for s in range(n_touched):
            j = touched[s]
            slot[j] = -1
            for i in range(d):
                increment = A_hat[j, i] * S[s, i] * aux[i]
                A_hat[j, i] += increment
                R[i] += increment
        for i in range(d):
            B[i] = rho * B[i] + mass[i]
        n_batches += 1
        rescale = False
        for i in range(d):
            if R[i] > _RESCALE_ABOVE:
                rescale = True
        if rescale:
            for i in range(d):
                aux[i] = 1.0 / R[i]
                fresh[i] *= aux[i]
                R[i] = 1.0
            for j in range(A_hat.shape[0]):
                for i in range(d):
                    A_hat[j, i] *= aux[i]
    return n_batches
