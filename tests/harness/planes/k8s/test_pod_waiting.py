from harness.planes.k8s.pod_waiting import WAITING_FAILURES_AFTER_S, WaitingWatch

GRACE = WAITING_FAILURES_AFTER_S["CreateContainerConfigError"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_pull_or_crash_loop_is_hopeless_at_once():
    watch = WaitingWatch(clock=Clock())
    assert watch.hopeless("a", "ImagePullBackOff")
    assert watch.hopeless("b", "CrashLoopBackOff")
    assert not watch.hopeless("c", "ContainerCreating")
    assert not watch.hopeless("c", "")


def test_a_config_error_is_hopeless_only_once_it_lasted_its_grace():
    clock = Clock()
    watch = WaitingWatch(clock=clock)
    assert not watch.hopeless("a", "CreateContainerConfigError")  # a kubelet just back up
    clock.now += GRACE - 1
    assert not watch.hopeless("a", "CreateContainerConfigError")
    assert not watch.hopeless("b", "CreateContainerConfigError")  # each pod its own time
    clock.now += 1
    assert watch.hopeless("a", "CreateContainerConfigError")
    assert not watch.hopeless("b", "CreateContainerConfigError")


def test_a_config_error_that_cleared_starts_its_grace_anew():
    clock = Clock()
    watch = WaitingWatch(clock=clock)
    watch.hopeless("a", "CreateContainerConfigError")
    clock.now += GRACE - 1
    assert not watch.hopeless("a", "ContainerCreating")
    clock.now += 2
    assert not watch.hopeless("a", "CreateContainerConfigError")
    clock.now += GRACE
    assert watch.hopeless("a", "CreateContainerConfigError")
