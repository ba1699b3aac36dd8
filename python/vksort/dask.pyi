from typing import Any, Optional, Sequence, Union

def sort_partition(
    df: Any,
    by: Union[str, Sequence[Any]],
    ascending: Union[bool, Sequence[bool]] = ...,
    na_position: str = ...,
    ignore_index: bool = ...,
    **kwargs: Any,
) -> Any: ...
def sort_values(
    ddf: Any,
    by: Union[str, Sequence[str]],
    ascending: Union[bool, Sequence[bool]] = ...,
    *,
    na_position: str = ...,
    npartitions: Optional[int] = ...,
    ignore_index: bool = ...,
    **kwargs: Any,
) -> Any: ...
def use_devices(client: Any, devices: Sequence[Union[int, str]]) -> dict: ...
