"""Low-rank shared dictionary learning (LRSDL) as a scikit-learn classifier."""

from numbers import Integral

from .._common.compat import Interval
from .._common.validation import NON_NEGATIVE
from ._fisher_classifier import FisherDictionaryClassifier, fisher_doc


@fisher_doc
class LRSDL(FisherDictionaryClassifier):
    """Low-rank shared dictionary learning (Vu & Monga).

    FDDL's class-specific sub-dictionaries plus a small dictionary ``D0`` shared by
    all classes, which captures what the classes have in common (for faces: the
    average face, illumination). ``D0`` is pushed towards low rank by a nuclear norm
    and its codes towards being the same for every sample. Classification removes the
    shared part before comparing class-wise reconstruction errors.

    The FDLSR paper unit-normalises every sample first: the full pipeline is
    ``make_pipeline(Normalizer(), LRSDL())``.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    n_atoms_per_class : int or None, default=None
        Class-specific atoms of each class; ``None`` (the FDLSR paper's setting): one
        per training sample of the class. An int must not exceed the smallest class.
    n_shared_atoms : int, default=5
        Atoms of the shared dictionary (Vu & Monga's k0; DICTOL's demo uses 5).
        Shared atoms that no training sample uses are dropped during training.
        ``0`` gives FDDL.
    lambda1 : float, default=1e-3
        Weight of the l1 norm of all codes.
    lambda2 : float, default=1e-2
        Weight of the Fisher term and of the shared codes' spread.
    eta : float, default=2e-2
        Weight of the nuclear norm of the shared dictionary.
    max_iter : int, default=10
        Alternations of the code, dictionary and shared-dictionary updates after
        the initialisation (DICTOL: 100; see :class:`FDDL`'s Notes).
    %(training_iterations)s
    predict_iter : int, default=100
        FISTA iterations of the test-sample coding (DICTOL: 300 for LRSDL's rule).
    tol : float, default=1e-8
        Stopping rules of the training FISTA runs and dictionary updates (DICTOL's).
    decision_rule : {"global", "local"}, default="global"
        ``"global"`` (DICTOL's ``LRSDL_pred_GC``): code on ``[D, D0]`` with the
        shared code pulled to its training mean, remove the shared part, error
        ``||yhat - D_c a^c||^2 + weight ||a - m_c||^2``. ``"local"`` (DICTOL's
        ``LRSDL_pred_LC``): lasso on each ``[D_c, D0]``, error
        ``1/2 ||y - [D_c D0] a||^2 + gamma ||a||_1``.
    gamma : float or None, default=None
        l1 weight of the test-sample coding; ``None`` uses ``lambda1``.
    weight : float, default=1.0
        Weight of the code-to-class-mean distance (DICTOL weighs the two errors
        equally).
    random_state : int, RandomState instance or None, default=None
        Picks the initial shared atoms (and class atoms when ``n_atoms_per_class``
        is smaller than a class).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    components_ : ndarray of shape (n_atoms, n_features)
        Class-specific atoms (rows), grouped by class.
    shared_components_ : ndarray of shape (n_shared_atoms_kept, n_features)
        Shared atoms that survived training.
    atom_labels_ : ndarray of shape (n_atoms,)
    mean_codes_ : ndarray of shape (n_classes, n_atoms)
        Mean class-specific training code of every class.
    mean_shared_code_ : ndarray of shape (n_shared_atoms_kept,)
        Mean shared training code (``m0``).
    objective_ : ndarray of shape (max_iter + 1,)
        Cost after the initialisation and after every iteration (never increases).
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when ``X`` has feature names that are all strings.

    See Also
    --------
    FDDL : the same model without the shared dictionary.

    Notes
    -----
    Cost (Vu & Monga 2017, Eq. 7-8), with ``Ybar = Y - D0 X0``::

        1/2 sum_c [ ||Ybar_c - D X_c||^2 + ||Ybar_c - D_c X^c_c||^2
                    + sum_{j != c} ||D_j X^j_c||^2 ]
        + lambda1 ||[X; X0]||_1
        + lambda2/2 [ sum_c (||X_c - M_c||^2 - ||M_c - M||^2) + ||X||^2
                      + ||X0 - M0||^2 ]
        + eta ||D0||_*

    subject to unit-norm atoms in ``D`` and ``D0``. With no shared atoms it is FDDL's
    cost exactly, so ``LRSDL(n_shared_atoms=0)`` learns the same model as
    :class:`FDDL` with the same parameters.

    *Solver* (DICTOL's ``LRSDL.m``): class dictionaries initialised as in FDDL, the
    shared one by 30 alternations of FISTA and the low-rank step on all samples; then
    each iteration updates ``[X; X0]`` together by FISTA, drops shared atoms whose
    codes sum below 1e-5, updates ``D`` by block coordinate descent with ``Y``
    replaced by ``Ybar``, and ``D0`` by ADMM on
    ``||L - D0 X0||^2 + eta ||D0||_*``, ``L = Y - D dbl(X) / 2`` (singular value
    thresholding for the nuclear norm, block coordinate descent for the unit-ball
    part; Sec. III-D). The ADMM result is kept only if it lowers that sub-problem, so
    ``objective_`` is non-increasing. After the last iteration ``[X; X0]`` are coded
    once more (``final_coding_iter`` FISTA steps, as ``LRSDL.m`` does) and the mean
    codes are taken from them.

    *Deviations* are those of :class:`FDDL` (iteration budget, the dictionary update
    that DICTOL's MATLAB code discards), plus: DICTOL's ADMM does not rescale the
    scaled dual variable when it changes the penalty, which is done here; its cost
    function adds the nuclear norm only when there are *no* shared atoms (an
    inverted test), which is corrected in ``objective_``.

    References
    ----------
    T. H. Vu and V. Monga, "Fast low-rank shared dictionary learning for image
    classification", IEEE Transactions on Image Processing 26(11), 2017.
    DICTOL toolbox: https://github.com/tiepvupsu/DICTOL

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import Normalizer
    >>> from fdlsr.dictionary import LRSDL
    >>> X, y = load_digits(return_X_y=True)
    >>> model = make_pipeline(Normalizer(), LRSDL(max_iter=2, random_state=0))
    >>> model.fit(X[:300], y[:300]).score(X[300:500], y[300:500]) > 0.85
    True
    """

    _parameter_constraints: dict = {
        **FisherDictionaryClassifier._parameter_constraints,
        "n_shared_atoms": [Interval(Integral, 0, None, closed="left")],
        "eta": [NON_NEGATIVE],
    }
    _local_rule_is_fddl = False

    def __init__(
        self,
        n_atoms_per_class=None,
        *,
        n_shared_atoms=5,
        lambda1=1e-3,
        lambda2=1e-2,
        eta=2e-2,
        max_iter=10,
        init_iter=30,
        coding_iter=20,
        final_coding_iter=300,
        predict_iter=100,
        tol=1e-8,
        decision_rule="global",
        gamma=None,
        weight=1.0,
        random_state=None,
    ):
        self.n_atoms_per_class = n_atoms_per_class
        self.n_shared_atoms = n_shared_atoms
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.eta = eta
        self.max_iter = max_iter
        self.init_iter = init_iter
        self.coding_iter = coding_iter
        self.final_coding_iter = final_coding_iter
        self.predict_iter = predict_iter
        self.tol = tol
        self.decision_rule = decision_rule
        self.gamma = gamma
        self.weight = weight
        self.random_state = random_state

    def _fit_encoded(self, X, codes, n_classes):
        return self._fit_dictionaries(
            X,
            codes,
            n_classes,
            n_shared=self.n_shared_atoms,
            eta=float(self.eta),
        )
