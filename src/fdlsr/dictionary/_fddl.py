"""Fisher discrimination dictionary learning (FDDL) as a scikit-learn classifier."""

from ._fisher_classifier import FisherDictionaryClassifier, fisher_doc


@fisher_doc
class FDDL(FisherDictionaryClassifier):
    """Fisher discrimination dictionary learning (Yang, Zhang, Feng & Zhang).

    Learns one sub-dictionary per class whose sparse codes reconstruct their own class
    well and other classes poorly, with a Fisher criterion (small within-class, large
    between-class scatter) on the codes. A sample is assigned to the class with the
    smallest reconstruction error plus distance of its code to the class's mean code.
    Solved with the fast algorithms of Vu & Monga's DICTOL toolbox, which the FDLSR
    paper used for FDDL.

    The FDLSR paper unit-normalises every sample first: the full pipeline is
    ``make_pipeline(Normalizer(), FDDL())``.

    Assumes unit-norm samples, as the FDLSR paper's comparison gives every method
    (and ``fdlsr run`` does): ``fit`` warns of samples far from unit norm
    (:class:`~fdlsr.errors.DataScaleWarning`) and refuses a scale its arithmetic
    cannot hold (:class:`~fdlsr.errors.DataScaleError`).

    Parameters
    ----------
    n_atoms_per_class : int or None, default=None
        Atoms of each class's sub-dictionary. ``None`` (the FDLSR paper's setting): one
        atom per training sample of the class, so classes may have different numbers
        of atoms. An int must not exceed the smallest class.
    lambda1 : float, default=1e-3
        Weight of the l1 norm of the codes (Vu & Monga's lambda1; Yang et al.'s
        lambda1 is twice it).
    lambda2 : float, default=5e-2
        Weight of the Fisher term (Vu & Monga's lambda2, Yang et al.'s lambda2).
    max_iter : int, default=10
        Alternations of the code and dictionary updates after the initialisation.
        DICTOL runs 100; see Notes for why fewer are the default here.
    %(training_iterations)s
    predict_iter : int, default=100
        FISTA iterations of the test-sample coding (DICTOL: 100 for FDDL).
    tol : float, default=1e-8
        Stop a training FISTA run once the mean absolute change of the codes falls
        below ``tol``, and a dictionary update once ``||D - D_prev||_F / D.size < tol``
        (DICTOL's rules).
    decision_rule : {"global", "local"}, default="global"
        ``"global"``: code on the whole dictionary, error
        ``||y - D_c a^c||^2 + weight ||a - m_c||^2`` (Yang et al.'s GC, DICTOL's
        ``FDDL_pred``). ``"local"``: code on each class's atoms with the class-mean
        term, ``weight`` playing Yang et al.'s gamma2 (their LC).
    gamma : float or None, default=None
        l1 weight of the test-sample coding; ``None`` uses ``lambda1``.
    weight : float, default=0.1
        Weight of the code-to-class-mean distance in the class errors (DICTOL's
        ``FDDL_wrapper``: 0.1).
    random_state : int, RandomState instance or None, default=None
        Picks the initial atoms when ``n_atoms_per_class`` is smaller than a class.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    components_ : ndarray of shape (n_atoms, n_features)
        The learnt atoms (rows), grouped by class.
    shared_components_ : ndarray of shape (0, n_features)
        Empty: FDDL has no shared atoms (kept for symmetry with :class:`LRSDL`).
    atom_labels_ : ndarray of shape (n_atoms,)
        Class of every atom.
    mean_codes_ : ndarray of shape (n_classes, n_atoms)
        Mean training code of every class (the ``m_c`` of the decision rules).
    mean_shared_code_ : ndarray of shape (0,)
    objective_ : ndarray of shape (max_iter + 1,)
        Cost after the initialisation and after every iteration (never increases).
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Defined only when ``X`` has feature names that are all strings.

    See Also
    --------
    LRSDL : FDDL plus a low-rank dictionary shared by all classes.

    Notes
    -----
    With samples as the columns of ``Y``, class-``c`` samples ``Y_c`` and their codes
    ``X_c`` (``X^j_c``: the block on class ``j``'s atoms), the cost (Yang et al. 2014,
    Eq. 3-5, in Vu & Monga's scaling) is::

        1/2 sum_c [ ||Y_c - D X_c||^2 + ||Y_c - D_c X^c_c||^2
                    + sum_{j != c} ||D_j X^j_c||^2 ]
        + lambda1 ||X||_1
        + lambda2/2 [ sum_c (||X_c - M_c||^2 - ||M_c - M||^2) + ||X||^2 ]

    subject to unit-norm atoms (``||d_i|| <= 1``), with ``M_c`` and ``M`` the class and
    global mean codes. It is :class:`LRSDL`'s cost without shared atoms.

    *Solver* (DICTOL's ``LRSDL.m`` with no shared atoms): each class's atoms and codes
    are initialised by 30 alternations of a small dictionary learner on that class
    (atoms start as its samples); then each iteration updates all codes at once by
    FISTA (gradient ``M(D^T D) X - dbl(D^T Y) + lambda2 X (2I - 2P_c + P_1)``, where
    ``M``/``dbl`` double the own-class blocks and ``P_c``, ``P_1`` average over classes
    and over all samples), then the whole dictionary by cyclic block coordinate descent
    over the atoms on ``tr(D F D^T) - 2 tr(E D^T)``, ``F = M(X X^T)``,
    ``E = Y dbl(X)^T`` (Vu & Monga Sec. III-C). Both steps never raise the cost (a
    FISTA run that ends higher is discarded), so ``objective_`` is non-increasing.
    When there are more features than samples, everything is computed in an
    orthonormal basis of the samples' span, where the atoms stay. After the last
    iteration the training samples are coded once more (``final_coding_iter`` FISTA
    steps, DICTOL's ``LRSDL.m``) and the class mean codes are taken from these codes.

    *Deviations.* DICTOL runs 100 iterations of up to 300 FISTA steps; the default
    here is 10 x 20, about 150 times less work, because on FERET the accuracy did
    not change with longer training (docs/methods-dictionary.md). DICTOL's
    ``LRSDL_updateD_fast.m`` discards the updated dictionary (the result of
    ``FDDL_updateD_fast`` is not assigned), so its main loop never changes ``D``;
    here it is updated, as both papers state. DICTOL's ``FDDL_wrapper`` reports the
    best accuracy over four values of ``gamma`` on the test set; here ``gamma``
    defaults to ``lambda1`` and is never tuned on test data.

    References
    ----------
    M. Yang, L. Zhang, X. Feng and D. Zhang, "Fisher discrimination dictionary
    learning for sparse representation", ICCV 2011; "Sparse representation based
    Fisher discrimination dictionary learning for image classification", IJCV 2014.
    T. H. Vu and V. Monga, "Fast low-rank shared dictionary learning for image
    classification", IEEE TIP 2017; DICTOL toolbox: https://github.com/tiepvupsu/DICTOL

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import Normalizer
    >>> from fdlsr.dictionary import FDDL
    >>> X, y = load_digits(return_X_y=True)
    >>> model = make_pipeline(Normalizer(), FDDL(max_iter=2))
    >>> model.fit(X[:300], y[:300]).score(X[300:500], y[300:500]) > 0.85
    True
    """

    _parameter_constraints: dict = {**FisherDictionaryClassifier._parameter_constraints}

    def __init__(
        self,
        n_atoms_per_class=None,
        *,
        lambda1=1e-3,
        lambda2=5e-2,
        max_iter=10,
        init_iter=30,
        coding_iter=20,
        final_coding_iter=300,
        predict_iter=100,
        tol=1e-8,
        decision_rule="global",
        gamma=None,
        weight=0.1,
        random_state=None,
    ):
        self.n_atoms_per_class = n_atoms_per_class
        self.lambda1 = lambda1
        self.lambda2 = lambda2
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
        # FDDL is LRSDL without shared atoms.
        return self._fit_dictionaries(X, codes, n_classes, n_shared=0, eta=0.0)
